"""``_truncate`` on its own, below the limits ``fit_to_budget`` ever gives it: a limit with no
room for text leaves the ellipsis alone, or nothing when there is no room for that either."""

from __future__ import annotations

import pytest

from vaultctx.search.budget import _truncate


@pytest.mark.parametrize(("limit", "cut"), [(1, "…"), (0, ""), (-3, "")])
def test_a_limit_with_no_room_for_text(limit: int, cut: str) -> None:
    assert _truncate("alpha beta", limit) == cut


def test_two_characters_keep_one_and_the_ellipsis() -> None:
    assert _truncate("alpha beta", 2) == "a…"
