"""A Korean vault searched where no keyword list runs: `--mode vector`, or an index whose keyword
table is gone. The multilingual list is then the only ranker that reads Korean, so it ranks every
chunk; the cut to chunks in other languages is for searches where keywords read the question's
own language. Real index of a tiny Korean vault, real sqlite-vec, the multilingual engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw
import pytest

from tests.search import test_korean_conceptual as conceptual
from vaultctx.api import Vault
from vaultctx.config import Config, Settings

# "The way to the market": the note 장보기 ("grocery shopping") is about it.
MARKET = "시장 가는 길"
NO_KEYWORDS = "keyword index unavailable: vector search only"
FELL_BACK = "keyword index unavailable: falling back to vector search"

# The vault of test_korean_conceptual, indexed once per module here too.
korean_vault = conceptual.korean_vault


@pytest.fixture(scope="module")
def without_keywords(korean_vault: Vault, tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """The same index without its keyword table (what search reports as unavailable)."""
    copy = tmp_path_factory.mktemp("korean-nofts") / "index.db"
    assert isinstance(korean_vault.db_path, Path)
    shutil.copy(korean_vault.db_path, copy)
    conn = apsw.Connection(str(copy))
    conn.execute("DROP TABLE chunks_fts")
    conn.close()
    return Vault(config=Config(korean_vault.path, copy, Settings(quality_engine="")))


def _ranked(vault: Vault, question: str, mode: str) -> list[tuple[str, int | None]]:
    return [(r.file_path, r.vec_rank) for r in vault.search(question, mode=mode).results]


def test_a_hybrid_search_without_keywords_ranks_korean_notes(without_keywords: Vault) -> None:
    response = without_keywords.search(MARKET)
    assert response.notices == [NO_KEYWORDS]
    assert len(response.results) == len(conceptual.NOTES)
    assert response.results[0].file_path == "장보기.md"
    assert all(r.bm25_rank is None and r.vec_rank for r in response.results)
    conceptual_first = without_keywords.search(conceptual.CONCEPTUAL).results[0]
    assert conceptual_first.file_path == "자전거 정비.md"


def test_a_keyword_search_without_keywords_falls_back_to_multilingual(
    without_keywords: Vault,
) -> None:
    response = without_keywords.search(MARKET, mode="bm25")
    assert response.mode == "vector" and response.notices == [FELL_BACK]
    # The multilingual vectors, not the English-only ones, rank the fallback.
    assert _ranked(without_keywords, MARKET, "bm25") == _ranked(without_keywords, MARKET, "vector")
    assert response.results[0].file_path == "장보기.md"


def test_a_vector_search_of_a_korean_vault_ranks_its_korean_notes(
    korean_vault: Vault, without_keywords: Vault
) -> None:
    response = korean_vault.search(MARKET, mode="vector")
    assert response.notices == [] and response.results[0].file_path == "장보기.md"
    assert len(response.results) == len(conceptual.NOTES)
    # With keywords or without, a vector search is the multilingual list's alone.
    assert _ranked(korean_vault, MARKET, "vector") == _ranked(without_keywords, MARKET, "vector")
