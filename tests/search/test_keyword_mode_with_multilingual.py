"""A keyword search (``mode="bm25"``) stays a keyword search on an index with multilingual
vectors, even after the retriever has answered hybrid questions and holds those vectors (a
server answers both kinds): no vector list ranks it, nothing is routed away from BM25."""

from __future__ import annotations

from tests.search import test_korean_conceptual as conceptual
from vaultctx.api import Vault

# The vault of test_korean_conceptual, indexed once per module here too.
korean_vault = conceptual.korean_vault


def test_a_keyword_search_after_a_hybrid_one_uses_keywords_only(korean_vault: Vault) -> None:
    question = "시장 가는 길"
    assert any(r.vec_rank for r in korean_vault.search(question).results), "precondition"
    assert korean_vault.retriever().multilingual is not None, "precondition: vectors held"
    for query in (question, "주말 시장", "weekend market"):
        response = korean_vault.search(query, mode="bm25")
        assert all(r.vec_rank is None and r.bm25_rank for r in response.results), query
        assert response.mode == "bm25" and response.notices == []
    assert [r.file_path for r in korean_vault.search("주말 시장", mode="bm25").results] == [
        "장보기.md"
    ]
