"""Score fusion to the digit: default weights, an empty list, bounds that replace a list's own
scale and clamp to it, an id listed twice, weights adding up across lists, and the tie-breaks of
the fused order (only lists of weight above 0 count as presence)."""

from __future__ import annotations

import pytest

from vaultctx.search.fusion import Fused, fuse_rrf, fuse_scores


def _scores(fused: list[Fused]) -> dict[int, float]:
    return {entry.id: entry.score for entry in fused}


def test_each_list_weighs_one_by_default() -> None:
    fused = fuse_scores([[(1, 4.0), (2, 2.0)], [(2, 0.5), (3, 0.1)]])
    assert _scores(fused) == {1: 1.0, 2: 1.0, 3: 0.0}
    assert [entry.id for entry in fused] == [2, 1, 3]  # 2 is in both lists
    assert fused[0].ranks == (2, 1) and fused[2].ranks == (None, 2)


def test_one_weight_per_ranking_or_refused() -> None:
    with pytest.raises(ValueError, match=r"^one weight per ranking$"):
        fuse_scores([[(1, 1.0)]], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"^one weight per ranking$"):
        fuse_rrf([[1]], [1.0, 1.0])


def test_an_empty_list_is_skipped_and_the_next_still_counts() -> None:
    assert fuse_scores([[], [(7, 0.4)]], [1.0, 3.0]) == [Fused(7, 3.0, (None, 1))]


def test_bounds_replace_the_lists_own_scale_and_clamp_to_it() -> None:
    fused = fuse_scores(
        [[(1, 1.2), (2, 0.6), (3, 0.1)], [(4, 0.5), (5, 0.3)]],
        [1.0, 1.0],
        [(0.3, 0.9), None],
    )
    assert _scores(fused) == pytest.approx({1: 1.0, 2: 0.5, 3: 0.0, 4: 1.0, 5: 0.0})
    assert {entry.id: entry.ranks for entry in fused}[3] == (3, None)
    # Without bounds the first list is scaled by its own hits: 2 is (0.6 - 0.1) / 1.1.
    unbounded = fuse_scores([[(1, 1.2), (2, 0.6), (3, 0.1)]])
    assert _scores(unbounded) == pytest.approx({1: 1.0, 2: 0.5 / 1.1, 3: 0.0})


def test_an_id_listed_twice_counts_once_at_its_first_place() -> None:
    fused = fuse_scores([[(1, 3.0), (1, 1.0), (2, 2.0)]])
    assert fused == [Fused(1, 1.0, (1,)), Fused(2, 0.5, (3,))]


def test_weighted_scores_add_up_across_lists() -> None:
    fused = fuse_scores([[(1, 1.0), (2, 0.0)], [(2, 1.0), (1, 0.0)]], [0.5, 2.0])
    assert fused == [Fused(2, 2.0, (2, 1)), Fused(1, 0.5, (1, 2))]


def test_equal_scores_put_the_id_in_more_weighted_lists_first() -> None:
    fused = fuse_scores([[(6, 1.0)], [(5, 1.0), (6, 0.0)]])
    assert [entry.id for entry in fused] == [6, 5]


def test_a_list_of_weight_zero_is_no_presence() -> None:
    # 1 and 2 tie on score; 2's second rank is in a list of weight 0, so the id decides.
    # 3 is only in that list: fused with score 0, after every other.
    fused = fuse_scores([[(1, 1.0)], [(2, 1.0)], [(2, 1.0), (3, 0.5)]], [1.0, 1.0, 0.0])
    assert [(entry.id, entry.score) for entry in fused] == [(1, 1.0), (2, 1.0), (3, 0.0)]
