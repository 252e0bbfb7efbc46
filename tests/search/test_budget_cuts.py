"""Where a text too long for the budget is cut: at the last space before the limit (the ellipsis
counted in it), unless that space is in the first half of the piece, in which case the cut is at
the limit; spaces before the ellipsis are dropped. Tokens are estimated as 4 characters,
rounded up."""

from __future__ import annotations

import pytest

from vaultctx.search.budget import estimate_tokens, fit_to_budget


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2)])
def test_tokens_are_four_characters_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_the_cut_is_at_the_last_space_that_fits() -> None:
    # 20 characters of budget: 19 of text and the ellipsis; the last space in them is at 16.
    assert fit_to_budget(["alpha beta gamma delta epsilon"], 5) == ["alpha beta gamma…"]


def test_spaces_before_the_ellipsis_are_dropped() -> None:
    assert fit_to_budget(["alpha beta gamma  delta epsilon"], 5) == ["alpha beta gamma…"]


def test_a_space_in_the_first_half_is_not_worth_the_loss() -> None:
    # 19 characters kept; the only space, at 5, is before their middle: cut at the limit.
    text = "alpha " + "b" * 40
    assert fit_to_budget([text], 5) == ["alpha " + "b" * 13 + "…"]


@pytest.mark.parametrize(("space", "cut_at_space"), [(9, False), (10, True)])
def test_the_middle_itself_is_not_past_the_middle(space: int, cut_at_space: bool) -> None:
    # 19 characters kept (middle 9): a space at 9 is not after it, one at 10 is.
    text = "a" * space + " " + "b" * 40
    [kept] = fit_to_budget([text], 5)
    assert kept == ("a" * space + "…" if cut_at_space else text[:19] + "…")


def test_a_space_a_third_of_the_way_in_is_still_too_early() -> None:
    text = "a" * 7 + " " + "b" * 40  # the space at 7 of 19: past a third, before the middle
    assert fit_to_budget([text], 5) == [text[:19] + "…"]
