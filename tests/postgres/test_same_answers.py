"""The PostgreSQL store gives the answers the SQLite file gives: the same BM25 scores (to 1e-9)
and order, the same hybrid results, the same behaviour on re-index, edit and delete, and status
and doctor work on both."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_VAULT
from tests.postgres.conftest import assert_same_searches, location_for
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.search_queries import bm25_candidates, title_candidates
from vaultctx.index.vector_queries import nearest_chunks, stored_vectors
from vaultctx.search.fts_query import build_fts_query, build_title_query
from vaultctx.search.keyword_coverage import keyword_coverage

QUERIES = [
    "meeting notes",
    "postmortem review action items",
    "advisory lock",
    "emb*",
    "retrieval-augmented generation",
    "SQLITE_LOCKED billing",
    "deploy config credentials",
    "small embedding models are fine",
    "what is the weekly review",
    "볼트를 어떻게 쓰나요",
    "프로젝트 회의",
    "café naïve résumé",
    "evaluate before tuning recall",
    "idea local LLM summaries",
    "the",
]
WEIGHTS = [(1.0, 1.0, 1.0), (1.0, 0.5, 2.0), (3.0, 0.0, 0.25)]


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def _index(vault: Path, db: IndexLocation, embedder: StaticEmbedder) -> int:
    report = Indexer(Config(vault=vault, db=db, settings=Settings()), embedder).run(fast=True)
    return report.chunks_written


@pytest.fixture
def both(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest, embedder: StaticEmbedder
) -> tuple[Path, IndexLocation, IndexLocation]:
    sqlite = location_for("sqlite", example_vault, tmp_path, request)
    postgres = location_for("postgres", example_vault, tmp_path, request)
    assert _index(example_vault, sqlite, embedder) == _index(example_vault, postgres, embedder)
    return example_vault, sqlite, postgres


def test_bm25_scores_and_order_equal_fts5(both: tuple[Path, IndexLocation, IndexLocation]) -> None:
    _, sqlite, postgres = both
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    compared = 0
    try:
        for query in QUERIES:
            match = build_fts_query(query)
            assert match is not None
            for weights in WEIGHTS:
                expected = bm25_candidates(a, match, 20, weights)
                found = bm25_candidates(b, match, 20, weights)
                assert len(found) == len(expected), (match, weights)
                for (ida, sa), (idb, sb) in zip(expected, found, strict=True):
                    assert abs(sa - sb) < 1e-9, (match, weights, ida, idb)
                # Equal scores may come in either order; everything else in the same one.
                assert [round(s, 9) for _, s in expected] == [round(s, 9) for _, s in found]
                assert {i for i, _ in expected} == {i for i, _ in found} or len(expected) == 20
                compared += len(expected)
            title = build_title_query(query)
            if title:
                assert title_candidates(a, title) == title_candidates(b, title)
            # Any other expression: found chunk by chunk, then joined to its notes.
            assert title_candidates(a, match) == title_candidates(b, match), match
        some_files = [1, 3, 5]
        match = build_fts_query("notes review lock")
        assert match is not None
        expected = bm25_candidates(a, match, 10, WEIGHTS[1], some_files)
        found = bm25_candidates(b, match, 10, WEIGHTS[1], some_files)
        assert expected and [i for i, _ in found] == [i for i, _ in expected]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-9)
    finally:
        a.close()
        b.close()
    assert compared > 100


def test_titles_match_at_the_start_of_the_context_line(
    both: tuple[Path, IndexLocation, IndexLocation],
) -> None:
    _, sqlite, postgres = both
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    try:
        titles = [str(r[0]) for r in a.execute("SELECT title FROM files ORDER BY id")]
        for title in titles:
            match = build_title_query(title)
            if match is None:
                continue
            expected = title_candidates(a, match)
            assert expected, title
            assert title_candidates(b, match) == expected
    finally:
        a.close()
        b.close()


def test_hybrid_search_returns_the_same_results(
    both: tuple[Path, IndexLocation, IndexLocation],
) -> None:
    vault, sqlite, postgres = both
    assert_same_searches(vault, sqlite, postgres, QUERIES[:10])


def test_vectors_round_trip_and_filter_by_note(
    both: tuple[Path, IndexLocation, IndexLocation],
) -> None:
    _, sqlite, postgres = both
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    try:
        vectors_a = dict(stored_vectors(a, VECTOR_TABLE))
        assert dict(stored_vectors(b, VECTOR_TABLE)) == vectors_a
        query = vectors_a[min(vectors_a)]
        for files in (None, [2], [1, 4, 7]):
            expected = nearest_chunks(a, VECTOR_TABLE, query, 5, files)
            found = nearest_chunks(b, VECTOR_TABLE, query, 5, files)
            assert [c for c, _ in found] == [c for c, _ in expected]
            assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-3)
        hnsw = b.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = ?", (f"{VECTOR_TABLE}_hnsw",)
        )
        assert "halfvec_cosine_ops" in hnsw.fetchone()[0]  # built after the bulk load
        allowed = {int(r[0]) for r in b.execute("SELECT id FROM chunks WHERE file_id = 2")}
        assert {c for c, _ in nearest_chunks(b, VECTOR_TABLE, query, 50, [2])} == allowed
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_reindex_edit_delete_status_and_doctor(
    kind: str,
    example_vault: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    embedder: StaticEmbedder,
) -> None:
    db = location_for(kind, example_vault, tmp_path, request)
    first = _index(example_vault, db, embedder)
    assert first > 0
    files = Vault(example_vault, db=db).status().files
    assert _index(example_vault, db, embedder) == 0  # nothing changed: nothing written
    note = next(example_vault.rglob("*.md"))
    note.write_text(note.read_text() + "\n\nA zebracorn appears in this edited note.\n")
    assert _index(example_vault, db, embedder) > 0
    vault = Vault(example_vault, db=db)
    assert vault.search("zebracorn", limit=3).results[0].file_path == str(
        note.relative_to(example_vault)
    ).replace("\\", "/")
    note.unlink()
    _index(example_vault, db, embedder)
    assert not [r for r in Vault(example_vault, db=db).search("zebracorn").results if r.bm25_rank]
    status = vault.status()
    assert status.exists and status.files == files - 1
    assert status.vectors == status.chunks
    report = vault.doctor()
    failed = [c for c in report.checks if c["status"] == "fail"]
    assert not failed, failed
    if isinstance(db, PostgresLocation):
        index = open_index(db, readonly=True)
        try:
            assert index.integrity_problems() == []
            index.execute("UPDATE fts_totals SET rows = rows + 1")
            assert index.integrity_problems()  # the check can fail
        finally:
            index.close()


def test_both_passes_give_the_same_results(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Pass 2 (quality vectors) and the multilingual pass write and read through the seam too."""
    results = {}
    for kind in ("sqlite", "postgres"):
        vault = Vault(example_vault, db=location_for(kind, example_vault, tmp_path, request))
        try:
            report = vault.index()
            assert report.quality_embedded > 0 and report.quality_remaining == 0
            status = vault.status()
            assert status.quality_vectors == status.chunks
            results[kind] = [
                [(r.citation, r.vec_rank) for r in vault.search(query, limit=6).results]
                for query in QUERIES[:6]
            ]
            assert vault.index().chunks_written == 0
        finally:
            vault.close()
    assert results["postgres"] == results["sqlite"]


KOREAN_QUERIES = [
    "퇴비는 어떻게 만드나요",
    "김치찌개 끓이는 법",
    "자전거 체인 정비",
    "잠을 잘 자려면",
    "주간 회고에서 무엇을 적나요",
    "커피 찌꺼기",
]


def test_korean_keyword_scores_equal_fts5(
    tmp_path: Path, request: pytest.FixtureRequest, embedder: StaticEmbedder
) -> None:
    """Korean is analysed (Kiwi morphemes or bigrams) before either store tokenizes it."""
    vault = tmp_path / "vault-ko"
    shutil.copytree(EXAMPLE_VAULT.parent / "vault-ko", vault)
    stores = [location_for(kind, vault, tmp_path, request) for kind in ("sqlite", "postgres")]
    for store in stores:
        _index(vault, store, embedder)
    a, b = (open_index(store, readonly=True) for store in stores)
    try:
        matched = 0
        for query in KOREAN_QUERIES:
            match = build_fts_query(query)
            assert match is not None
            expected = bm25_candidates(a, match, 10, WEIGHTS[1])
            found = bm25_candidates(b, match, 10, WEIGHTS[1])
            assert [i for i, _ in found] == [i for i, _ in expected], query
            assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-9)
            matched += bool(expected)
            # How much of the question BM25's best chunk holds decides whether meaning ranks
            # a Korean question too: both stores must count alike.
            for best in {i for i, _ in expected[:3]} | {None}:
                on_sqlite = keyword_coverage(a, query, best)
                assert keyword_coverage(b, query, best) == pytest.approx(on_sqlite, abs=1e-12)
        assert matched >= 4
    finally:
        a.close()
        b.close()
