"""Every degradation ``Retriever.search`` reports, word for word: each notice is all the user
learns of why keywords or vectors did not rank the query. Real indexes of the example vault
(static model), real sqlite-vec, with the keyword table dropped or sqlite-vec refused."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import apsw
import pytest

import vaultctx.index.db as db_module
from tests.conftest import copy_example_vault
from vaultctx.api import Vault

NO_KEYWORDS = "keyword index unavailable: vector search only"
FELL_BACK = "falling back to"
NO_VECTORS = "no vectors in this index (sqlite-vec or model unavailable): keyword search only"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("notices")
    copy_example_vault(root / "vault")
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    return vault


@pytest.fixture(scope="module")
def without_keywords(indexed: Vault, tmp_path_factory: pytest.TempPathFactory) -> Vault:
    copy = tmp_path_factory.mktemp("nofts") / "index.db"
    assert isinstance(indexed.db_path, Path)
    shutil.copy(indexed.db_path, copy)
    conn = apsw.Connection(str(copy))
    conn.execute("DROP TABLE chunks_fts")
    conn.close()
    return Vault(indexed.path, db=copy)


@pytest.fixture
def without_vectors(indexed: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    def refuse(conn: apsw.Connection) -> None:
        return None  # as if the sqlite-vec wheel were missing on this platform

    monkeypatch.setattr(db_module, "_load_vec", refuse)
    vault = Vault(indexed.path, db=tmp_path / "novec.db")
    vault.index(fast=True)
    return vault


@pytest.mark.parametrize(
    ("index", "asked", "served", "notice"),
    [
        (
            "without_keywords",
            "bm25",
            "vector",
            "keyword index unavailable: falling back to vector search",
        ),
        (
            "without_vectors",
            "vector",
            "bm25",
            "no vectors in this index: falling back to keyword search",
        ),
    ],
)
def test_a_search_the_index_cannot_serve_falls_back(
    index: str, asked: str, served: str, notice: str, request: pytest.FixtureRequest
) -> None:
    vault: Vault = request.getfixturevalue(index)
    response = vault.search("incident postmortem", mode=asked)
    assert response.mode == served and response.notices == [notice]
    ranks = [(r.bm25_rank, r.vec_rank) for r in response.results]
    assert ranks and all((bm25 is None) == (served == "vector") for bm25, _ in ranks)


def test_a_hybrid_search_without_keywords_says_so(without_keywords: Vault) -> None:
    response = without_keywords.search("incident postmortem")
    assert response.mode == "hybrid" and response.notices == [NO_KEYWORDS]
    graphed = without_keywords.search("incident postmortem", graph=True)
    assert graphed.notices == [NO_KEYWORDS] and graphed.results


def test_a_hybrid_search_without_vectors_says_so(without_vectors: Vault) -> None:
    response = without_vectors.search("incident postmortem")
    assert response.mode == "hybrid" and response.notices == [NO_VECTORS]
    graphed = without_vectors.search("incident postmortem", graph=True)
    assert graphed.notices == [
        NO_VECTORS,
        "graph expansion needs vector hits: results not widened along links",
    ]
    assert graphed.results and all(r.graph is None for r in graphed.results)


def test_a_cjk_query_is_ranked_by_keywords_alone(indexed: Vault) -> None:
    response = indexed.search("회의록", limit=5)
    assert response.notices == ["vector models are English-only: CJK query ranked by keywords"]
    # A vector search was asked for by name: the vectors rank it, without the notice.
    assert indexed.search("회의록", mode="vector").notices == []


def test_weak_matches_are_named_with_the_best_similarity(indexed: Vault) -> None:
    response = indexed.search("zebra xylophone quasar", mode="vector")
    [notice] = response.notices
    assert re.fullmatch(
        r"weak matches: no result contains the query's words and none is close in meaning "
        r"\(best similarity 0\.\d\d\); the notes may not cover this, or try other words",
        notice,
    )


def test_a_keyword_search_asks_for_no_vectors_and_says_nothing(indexed: Vault) -> None:
    response = indexed.search("incident postmortem", mode="bm25")
    assert response.mode == "bm25" and response.notices == []
    assert response.results and all(r.vec_rank is None for r in response.results)
