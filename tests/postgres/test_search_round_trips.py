"""The PostgreSQL reader's search-side shortcuts stay correct: ``model_meta`` is read once per
burst of reads and a writer's change is seen after ``META_FRESH_SECONDS`` (postgres/store.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.postgres.conftest import location_for
from vaultctx.config import Config, Settings
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres import store


def _statements(db: Any, seen: list[str]) -> None:
    """Record every statement ``db`` sends (its ``run`` is the only way to the server)."""
    run = db.run

    def counted(sql: str, params: Any = ()) -> Any:
        seen.append(sql)
        return run(sql, params)

    db.run = counted


@pytest.fixture
def reader_and_writer(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Any, Any]]:
    """A reader's and a writer's handle on the indexed example vault in PostgreSQL."""
    location = location_for("postgres", example_vault, tmp_path, request)
    Indexer(Config(vault=example_vault, db=location, settings=Settings()), StaticEmbedder()).run(
        fast=True
    )
    reader = open_index(location, readonly=True)
    writer = open_index(location)
    try:
        yield reader, writer
    finally:
        reader.close()
        writer.close()


def test_a_reader_reads_model_meta_once_and_sees_a_writers_change(
    reader_and_writer: tuple[Any, Any],
) -> None:
    reader, writer = reader_and_writer
    seen: list[str] = []
    _statements(reader, seen)
    first = [reader.meta(key) for key in ("fts_tokenizer", "model_hash", "no such key")]
    assert first[0] is not None and first[2] is None
    assert [reader.meta(key) for key in ("fts_tokenizer", "model_hash")] == first[:2]
    assert sum("model_meta" in sql for sql in seen) == 1

    writer.set_meta("model_hash", "changed by another process")
    time.sleep(store.META_FRESH_SECONDS + 0.05)
    assert reader.meta("model_hash") == "changed by another process"
    writer.execute("DELETE FROM model_meta WHERE key = 'model_hash'")  # outside a transaction
    assert writer.meta("model_hash") is None  # a writer always reads the row
    time.sleep(store.META_FRESH_SECONDS + 0.05)
    assert reader.meta("model_hash") is None

    # A write transaction is seen at once by a reader that reads the data version.
    assert reader.meta("model_hash") is None
    with writer.transaction():
        writer.set_meta("model_hash", "in a transaction")
    reader.data_version()
    assert reader.meta("model_hash") == "in a transaction"


def test_a_reader_plans_each_statement_once_and_a_writer_per_run(
    reader_and_writer: tuple[Any, Any],
) -> None:
    """Readers keep one generic plan per prepared statement (planning the keyword ranking
    afresh cost more than running it); the indexer's connection keeps PostgreSQL's default."""
    reader, writer = reader_and_writer
    assert reader.run("SHOW plan_cache_mode").fetchone()[0] == "force_generic_plan"
    assert writer.run("SHOW plan_cache_mode").fetchone()[0] == "auto"
