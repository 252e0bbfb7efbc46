"""Readers are never blocked by an indexer on PostgreSQL (MVCC): while a write transaction is
open, a reader sees the last committed index at once, and the change once it commits."""

from __future__ import annotations

from pathlib import Path

from vaultctx.config import Config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer


def test_a_reader_is_not_blocked_by_an_open_write_transaction(
    tmp_path: Path, postgres_url: str
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "plan.md").write_text("# Plan\n\nShip the lighthouse keeper's log.\n")
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    writer = open_index(location)
    reader = open_index(location, readonly=True)
    try:
        reader.execute("SET statement_timeout = 5000")  # a blocked read fails, not hangs
        before = reader.data_version()
        with writer.transaction():
            writer.execute("UPDATE files SET title = ?", ("Renamed",))
            writer.execute("DELETE FROM links")
            assert [r[0] for r in reader.execute("SELECT title FROM files")] == ["Plan"]
            assert reader.data_version() == before
        assert [r[0] for r in reader.execute("SELECT title FROM files")] == ["Renamed"]
        assert reader.data_version() != before  # caches of the index see the commit
    finally:
        writer.close()
        reader.close()
