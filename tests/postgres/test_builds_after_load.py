"""After a first load the keyword indexes and the HNSW graphs are built at the same time, the
graphs on a second session (postgres/after_load.py); a failed graph build is reported, and the
keyword indexes are built all the same."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from vaultctx.config import Config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres import vectors

TERM_INDEXES = {"fts_terms_pkey", "fts_terms_chunk", "fts_terms_first"}


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(6):
        (vault / f"note{n}.md").write_text(f"# Note {n}\n\nThe keeper lit lamp {n} at dusk.\n")
    return vault


def _indexes(location: PostgresLocation) -> set[str]:
    db = open_index(location, readonly=True)
    try:
        rows = db.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
        return {str(row[0]) for row in rows}
    finally:
        db.close()


def test_graphs_are_built_on_a_second_session_beside_the_keyword_indexes(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    seen: list[str] = []
    build = vectors.ensure_hnsw_indexes

    def recording(db: Any, tables: Any) -> None:
        seen.append(threading.current_thread().name)
        build(db, tables)

    monkeypatch.setattr(vectors, "ensure_hnsw_indexes", recording)
    indexer = Indexer(Config(vault=vault, db=location), StaticEmbedder())
    indexer.run(fast=True)
    assert seen[0] == "vaultctx-hnsw-build"  # the first build; a later call finds nothing to do
    present = _indexes(location)
    assert present >= TERM_INDEXES
    assert "chunk_vecs_hnsw" in present


def test_a_failed_graph_build_is_reported_and_the_keyword_indexes_stand(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))

    build = vectors.ensure_hnsw_indexes

    def failing(db: Any, tables: Any) -> None:
        if threading.current_thread().name == "vaultctx-hnsw-build":
            raise RuntimeError("graph build failed")
        build(db, tables)  # on the indexer's own thread: builds as usual

    monkeypatch.setattr(vectors, "ensure_hnsw_indexes", failing)
    config = Config(vault=vault, db=location)
    with pytest.raises(RuntimeError, match="graph build failed"):
        Indexer(config, StaticEmbedder()).run(fast=True)
    present = _indexes(location)
    assert present >= TERM_INDEXES
    assert "chunk_vecs_hnsw" not in present
    monkeypatch.undo()  # the next run builds the graph that is missing
    Indexer(config, StaticEmbedder()).run(fast=True)
    assert "chunk_vecs_hnsw" in _indexes(location)
