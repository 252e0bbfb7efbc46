from __future__ import annotations

import pytest

from vaultctx.search.fusion import fuse_rrf, fuse_scores
from vaultctx.search.ranking_constants import RRF_K


def test_scores_follow_the_formula() -> None:
    fused = fuse_rrf([[10, 20], [20, 30]], [1.0, 0.5])
    by_id = {f.id: f for f in fused}
    assert by_id[20].score == pytest.approx(1 / (RRF_K + 2) + 0.5 / (RRF_K + 1))
    assert by_id[10].ranks == (1, None)
    assert [f.id for f in fused] == [20, 10, 30]


def test_tie_in_both_lists_beats_one_list() -> None:
    fused = fuse_rrf([[5], [6], [6]], [2.0, 1.0, 1.0])
    assert fused[0].score == fused[1].score
    assert [f.id for f in fused] == [6, 5]


def test_tie_lower_summed_rank_wins() -> None:
    # k=0 keeps the arithmetic exact: A ranks (1, 4) → 1 + 2/4; B ranks (2, 2) → 1/2 + 2/2.
    fused = fuse_rrf([[1, 2], [9, 2, 8, 1]], [1.0, 2.0], k=0)
    top = [f for f in fused if f.id in (1, 2)]
    assert top[0].score == top[1].score
    assert [f.id for f in top] == [2, 1]


def test_tie_then_lower_single_rank_wins() -> None:
    # A ranks (1, 3) → 1 + 3/3; B ranks (2, 2) → 1/2 + 3/2: equal scores and equal rank sums.
    fused = fuse_rrf([[1, 2], [9, 2, 1]], [1.0, 3.0], k=0)
    top = [f for f in fused if f.id in (1, 2)]
    assert top[0].score == top[1].score
    assert [f.id for f in top] == [1, 2]


def test_zero_weight_list_reports_ranks_but_adds_nothing() -> None:
    fused = fuse_rrf([[1, 2], [2, 3]], [1.0, 0.0])
    by_id = {f.id: f for f in fused}
    assert by_id[3].score == 0
    assert by_id[2].ranks == (2, 1)
    assert [f.id for f in fused][:2] == [1, 2]


def test_weights_must_match() -> None:
    with pytest.raises(ValueError):
        fuse_rrf([[1]], [1.0, 2.0])


def test_score_fusion_min_max_normalises_each_list() -> None:
    fused = fuse_scores(
        [[(1, 10.0), (2, 5.0), (3, 0.0)], [(3, 0.9), (2, 0.5), (4, 0.1)]], [1.0, 0.5]
    )
    by_id = {f.id: f for f in fused}
    assert by_id[1].score == pytest.approx(1.0)
    assert by_id[2].score == pytest.approx(0.5 + 0.5 * 0.5)
    assert by_id[3].score == pytest.approx(0.0 + 0.5 * 1.0)
    assert by_id[4].score == pytest.approx(0.0)
    assert by_id[2].ranks == (2, 2)
    assert [f.id for f in fused][:2] == [1, 2]


def test_score_fusion_flat_list_counts_fully_and_ties_prefer_both_lists() -> None:
    fused = fuse_scores([[(1, 3.0)], [(2, 0.7), (1, 0.2)]])
    assert {f.id: f.score for f in fused} == {1: 1.0, 2: 1.0}
    assert fused[0].id == 1  # equal scores: in both lists beats one list
