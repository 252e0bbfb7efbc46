"""When BM25's best hit holds little of a Korean question, the multilingual list ranks the
question's own language too, however small the measured weight; a question with no terms at all
gets no weight. Real index of a tiny Korean vault, real sqlite-vec, the multilingual engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw

from tests.search import test_korean_conceptual as conceptual
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.index.db import open_index
from vaultctx.search.bm25 import bm25_search
from vaultctx.search.keyword_coverage import keyword_coverage
from vaultctx.search.language_routing import meaning_weight

# "The way to the market": BM25's best hit (장보기, "시장") holds about half of its terms.
HALF_MATCHED = "시장 가는 길"


# The vault of test_korean_conceptual, indexed once per module here too.
korean_vault = conceptual.korean_vault


def test_a_weight_under_one_still_lets_meaning_rank_korean_notes(korean_vault: Vault) -> None:
    db = open_index(korean_vault.db_path, readonly=True)
    try:
        best = bm25_search(db, HALF_MATCHED)[0][0]
        coverage = keyword_coverage(db, HALF_MATCHED, best)
    finally:
        db.close()
    assert coverage is not None and 0 < meaning_weight(coverage) < 1, "the premise"
    results = korean_vault.search(HALF_MATCHED).results
    assert results[0].file_path == "장보기.md" and results[0].bm25_rank == 1
    # Only the multilingual vectors can rank a Korean chunk: weighted in, they did.
    assert results[0].vec_rank == 1
    assert any(result.bm25_rank is None and result.vec_rank for result in results)


def test_a_question_without_terms_gets_no_meaning_weight(korean_vault: Vault) -> None:
    # "에서" (a particle, "at") leaves no term to search; BM25 found nothing, not a weak hit.
    response = korean_vault.search("에서")
    assert response.results == [] and response.notices == []


def test_without_keywords_the_routed_search_says_so(korean_vault: Vault, tmp_path: Path) -> None:
    copy = tmp_path / "index.db"
    assert isinstance(korean_vault.db_path, Path)
    shutil.copy(korean_vault.db_path, copy)
    conn = apsw.Connection(str(copy))
    conn.execute("DROP TABLE chunks_fts")
    conn.close()
    vault = Vault(config=Config(korean_vault.path, copy, Settings(quality_engine="")))
    response = vault.search(HALF_MATCHED)
    assert response.notices == ["keyword index unavailable: vector search only"]
    assert vault.search(HALF_MATCHED, mode="vector").notices == []
