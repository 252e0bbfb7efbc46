"""The token budget at its edges: a spent budget adds nothing more, one character left still takes
a one-character text, and a text that does not fit is cut from exactly 200 characters left."""

from __future__ import annotations

from vaultctx.search.budget import ELLIPSIS, fit_to_budget


def test_no_budget_keeps_nothing() -> None:
    assert fit_to_budget(["abc"], 0) == []


def test_a_spent_budget_adds_not_even_an_empty_text() -> None:
    assert fit_to_budget(["abcd", ""], 1) == ["abcd"]


def test_one_character_left_still_takes_a_one_character_text() -> None:
    assert fit_to_budget(["abc", "x"], 1) == ["abc", "x"]


def test_a_second_text_is_cut_when_exactly_200_characters_are_left() -> None:
    first, second = "a" * 100, "b" * 300
    kept = fit_to_budget([first, second], 75)  # 300 characters: 200 left after the first
    assert kept[0] == first and len(kept) == 2
    assert kept[1].endswith(ELLIPSIS) and len(kept[1]) == 200


def test_a_second_text_is_dropped_when_199_characters_are_left() -> None:
    first, second = "a" * 101, "b" * 300
    assert fit_to_budget([first, second], 75) == [first]
