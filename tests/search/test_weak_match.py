"""A search whose results share no word with the query and are far from it in meaning says so:
"weak matches", instead of offering the least distant notes as if they answered it.

The thresholds are measured (bench/weak_match.py); these queries sit far from them on either
side, for both vector models.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.search.request import SearchRequest

OFF_TOPIC = "banana bread recipe with walnuts"  # best cosine: static 0.17, transformer ~0.1
ON_TOPIC = "what does the busy timeout do in SQLite"


def weak(vault: Vault, query: str, **options: object) -> bool:
    response = vault.search(SearchRequest(query, **options))  # type: ignore[arg-type]
    return any(notice.startswith("weak matches") for notice in response.notices)


@pytest.fixture(scope="module", params=["static", "transformer"])
def vault(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp(f"weak-{request.param}")
    copy_example_vault(root / "vault")
    handle = Vault(root / "vault", db=root / "index.db")
    handle.index(fast=request.param == "static")
    table = "chunk_vecs" if request.param == "static" else "chunk_vecs_quality"
    assert [s.table for s in handle.retriever().vector_sources()] == [table], "precondition"
    return handle


def test_an_off_topic_query_is_told_its_matches_are_weak(vault: Vault) -> None:
    response = vault.search(OFF_TOPIC)
    assert response.results, "vector search always offers the nearest chunks"
    assert all(result.bm25_rank is None for result in response.results)
    [notice] = [n for n in response.notices if n.startswith("weak matches")]
    assert "no result contains the query's words" in notice and "best similarity 0." in notice
    assert weak(vault, OFF_TOPIC, mode="vector")


def test_an_answerable_query_gets_no_such_notice(vault: Vault) -> None:
    assert not weak(vault, ON_TOPIC)
    assert not weak(vault, ON_TOPIC, mode="vector")


def test_a_keyword_hit_is_never_weak(vault: Vault) -> None:
    query = f"{OFF_TOPIC} checkpoint"  # one word the vault has
    response = vault.search(query)
    assert any(result.bm25_rank is not None for result in response.results)
    assert not weak(vault, query)


def test_no_results_need_no_notice(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "a.md").write_text("# A\n\nSome text about trains.\n", encoding="utf-8")
    handle = Vault(tmp_path / "v", db=tmp_path / "i.db")
    handle.index(fast=True)
    response = handle.search("zxqv plonk", mode="bm25")
    assert response.results == [] and not any("weak" in n for n in response.notices)
