"""BM25's document length is read from each posting (migration pg002): every posting carries its
row's token count, an index from before pg002 is upgraded in place and then ranks as FTS5 does,
and a reader of an old index is told to upgrade it (postgres/fts.py, postgres/migrations.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.postgres.conftest import location_for
from tests.postgres.test_same_answers import (
    test_bm25_scores_and_order_equal_fts5 as assert_ranks_as_fts5,
)
from vaultctx.config import Config, Settings
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.database import IndexOutdatedError
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres.fts import bm25, build_term_indexes, delete_all
from vaultctx.search.fts_query import build_fts_query


def _index(vault: Path, db: IndexLocation) -> None:
    Indexer(Config(vault=vault, db=db, settings=Settings()), StaticEmbedder()).run(fast=True)


def _wrong_lengths(location: PostgresLocation) -> int:
    db = open_index(location, readonly=True)
    try:
        row = db.execute(
            "SELECT count(*) FROM fts_terms t LEFT JOIN fts_docs d ON d.chunk_id = t.chunk_id "
            "WHERE d.tokens IS DISTINCT FROM t.tokens"
        ).fetchone()
        return int(row[0])
    finally:
        db.close()


def _as_before_pg002(location: PostgresLocation) -> None:
    """The schema as a vaultctx without pg002 left it: no lengths in the postings."""
    db = open_index(location)
    try:
        with db.transaction():
            db.execute("ALTER TABLE fts_terms DROP CONSTRAINT fts_terms_pkey")
            db.execute("ALTER TABLE fts_terms DROP COLUMN tokens")
            db.execute(
                "ALTER TABLE fts_terms ADD CONSTRAINT fts_terms_pkey "
                "PRIMARY KEY (term, chunk_id, col) INCLUDE (n)"
            )
            db.execute("DELETE FROM _migrations WHERE name = 'pg002_row_tokens_in_postings'")
    finally:
        db.close()


def test_every_posting_carries_its_rows_length_through_edits(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    location = location_for("postgres", example_vault, tmp_path, request)
    assert isinstance(location, PostgresLocation)
    _index(example_vault, location)
    note = next(example_vault.rglob("*.md"))
    note.write_text(note.read_text() + "\n\nA zebracorn grazes by the lighthouse, twice.\n")
    _index(example_vault, location)
    db = open_index(location, readonly=True)
    try:
        postings = db.execute("SELECT count(*) FROM fts_terms").fetchone()[0]
        key = db.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'fts_terms_pkey'"
        ).fetchone()[0]
    finally:
        db.close()
    assert postings > 1000
    assert "INCLUDE (n, tokens)" in key  # read by an index-only scan
    assert _wrong_lengths(location) == 0


def test_an_index_from_before_pg002_is_upgraded_and_ranks_as_fts5(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    sqlite = location_for("sqlite", example_vault, tmp_path, request)
    postgres = location_for("postgres", example_vault, tmp_path, request)
    assert isinstance(postgres, PostgresLocation)
    _index(example_vault, sqlite)
    _index(example_vault, postgres)
    _as_before_pg002(postgres)
    with pytest.raises(IndexOutdatedError):  # a reader does not migrate
        open_index(postgres, readonly=True)
    open_index(postgres).close()  # a writer does
    assert _wrong_lengths(postgres) == 0
    assert_ranks_as_fts5((example_vault, sqlite, postgres))  # the whole parity check


@pytest.fixture
def lamp(tmp_path: Path, postgres_url: str) -> PostgresLocation:
    """A one-note vault indexed into PostgreSQL."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "lamp.md").write_text("# Lamp\n\nThe lamp was lit at dusk.\n")
    location = PostgresLocation(postgres_url, str(vault))
    _index(vault, location)
    return location


def test_an_empty_keyword_index_answers_nothing(lamp: PostgresLocation) -> None:
    """The vault's totals are read inside the BM25 statement: with no rows there is no average
    length to divide by, and the answer is empty, not an error."""
    db = open_index(lamp)
    try:
        match = build_fts_query("lamp")
        assert match is not None
        assert bm25(db, match, 5, (1.0, 1.0, 1.0))
        with db.transaction():
            delete_all(db)
            db.execute("INSERT INTO fts_terms SELECT 'lamp', 1, 0, 1, '{0}', 1")
        assert bm25(db, match, 5, (1.0, 1.0, 1.0)) == []
    finally:
        db.close()


def test_index_builds_leave_the_sessions_memory_setting_as_it_was(
    lamp: PostgresLocation,
) -> None:
    db = open_index(lamp)
    try:
        before = db.execute("SHOW maintenance_work_mem").fetchone()[0]
        db.execute("DROP INDEX fts_terms_chunk")
        build_term_indexes(db)
        assert db.execute("SHOW maintenance_work_mem").fetchone()[0] == before
        assert db.execute("SELECT to_regclass('fts_terms_chunk')").fetchone()[0] is not None
    finally:
        db.close()
