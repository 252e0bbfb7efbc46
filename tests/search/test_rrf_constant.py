"""RRF (SPEC §6): score = Σ weight_i / (60 + rank_i), ranks from 1. The 60 is written out here on
purpose: a test deriving it from the module's own constant would follow any change to it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.search.fusion import fuse_rrf
from vaultctx.search.request import Weights


def test_default_k_is_60() -> None:
    fused = {f.id: f.score for f in fuse_rrf([[10, 20, 30], [30, 10]], [1.0, 0.5])}
    assert fused == pytest.approx(
        {10: 1 / 61 + 0.5 / 62, 20: 1 / 62, 30: 1 / 63 + 0.5 / 61}, rel=1e-12
    )


def test_hybrid_rrf_search_scores_follow_the_formula(example_vault: Path, tmp_path: Path) -> None:
    with Vault(example_vault, db=tmp_path / "index.db") as vault:
        vault.index(fast=True)  # static vectors only: one vector list, weighted 0.5 below
        # Not a note's title: a title match ranks that note first, outside the formula.
        results = vault.search(
            "how ranked lists are fused", fusion="rrf", weights=Weights(vector=0.5)
        ).results
    assert results
    assert any(r.bm25_rank is not None and r.vec_rank is not None for r in results)
    for result in results:
        expected = 0.0
        if result.bm25_rank is not None:
            expected += 1.0 / (60 + result.bm25_rank)
        if result.vec_rank is not None:
            expected += 0.5 / (60 + result.vec_rank)
        assert result.score == round(expected, 6), result.citation
