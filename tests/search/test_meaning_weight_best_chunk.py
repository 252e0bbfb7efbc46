"""The coverage that decides the meaning weight is read from BM25's best chunk, not from the
index at large: a Korean question whose two words sit in two different notes is half-matched by
either, so the multilingual list ranks Korean notes too. Real index, the multilingual engine."""

from __future__ import annotations

from tests.search import test_korean_conceptual as conceptual
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.bm25 import bm25_search
from vaultctx.search.keyword_coverage import keyword_coverage

# "Pork" (김치찌개) and "bicycle" (자전거 정비): no note holds both.
SPLIT = "돼지고기 자전거"

# The vault of test_korean_conceptual, indexed once per module here too.
korean_vault = conceptual.korean_vault


def test_words_split_between_notes_let_meaning_rank(korean_vault: Vault) -> None:
    db = open_index(korean_vault.db_path, readonly=True)
    try:
        best = bm25_search(db, SPLIT)[0][0]
        assert keyword_coverage(db, SPLIT, best) == 0.5, "the premise: each word as rare"
    finally:
        db.close()
    results = korean_vault.search(SPLIT).results
    assert any(result.vec_rank is not None for result in results)
