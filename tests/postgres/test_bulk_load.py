"""A first index loads the keyword table without its indexes and ends with all of them, an
interrupted load gets them back on the next run, and readers' sessions run without JIT
(postgres/fts.py, postgres/store.py; speed in docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

from vaultctx.config import Config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres.fts import defer_term_indexes

TERM_INDEXES = {"fts_terms_pkey", "fts_terms_chunk", "fts_terms_first"}


def _term_indexes(location: PostgresLocation) -> set[str]:
    db = open_index(location, readonly=True)
    try:
        rows = db.execute(
            "SELECT indexname FROM pg_indexes "
            "WHERE schemaname = current_schema() AND tablename = 'fts_terms'"
        )
        return {str(row[0]) for row in rows}
    finally:
        db.close()


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "plan.md").write_text("# Lighthouse plan\n\nShip the lighthouse keeper's log.\n")
    (vault / "log.md").write_text("# Keeper's log\n\nThe lamp was lit at dusk.\n")
    return vault


def test_a_first_index_ends_with_every_keyword_index(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    indexer = Indexer(Config(vault=vault, db=location), StaticEmbedder())
    indexer.run(fast=True)
    assert _term_indexes(location) == TERM_INDEXES


def test_an_interrupted_load_gets_its_indexes_back(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    config = Config(vault=vault, db=location)
    Indexer(config, StaticEmbedder()).run(fast=True)
    db = open_index(location)
    try:  # what a load killed before its end leaves: rows, no indexes
        db.execute("ALTER TABLE fts_terms DROP CONSTRAINT fts_terms_pkey")
        db.execute("DROP INDEX fts_terms_chunk")
        defer_term_indexes(db)  # a table with rows: the indexes are built, not dropped
        assert _term_indexes(location) == TERM_INDEXES
        defer_term_indexes(db)  # and nothing changes when all are there
        assert _term_indexes(location) == TERM_INDEXES
    finally:
        db.close()
    (vault / "log.md").write_text("# Keeper's log\n\nThe lamp was lit at midnight.\n")
    Indexer(config, StaticEmbedder()).run(fast=True)
    assert _term_indexes(location) == TERM_INDEXES


def test_an_empty_keyword_table_is_loaded_bare(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    db = open_index(location)
    try:
        db.execute("DELETE FROM fts_terms")
        defer_term_indexes(db)
        assert _term_indexes(location) == set()
    finally:
        db.close()


def test_sessions_run_without_jit(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    db = open_index(location, readonly=True)
    try:
        assert db.execute("SHOW jit").fetchone()[0] == "off"
    finally:
        db.close()
