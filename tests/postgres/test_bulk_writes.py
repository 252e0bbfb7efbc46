"""The indexer's batches on PostgreSQL: rows and vectors go in by binary COPY and come out as the
SQLite store holds them; the HNSW graph is built with memory for it, only in its own
transaction; the indexer's session alone commits without waiting for the log flush
(postgres/store.py, postgres/vectors.py, postgres/halfvec.py; speed in docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vaultctx.config import Config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer, commit_without_flush_wait
from vaultctx.index.postgres.halfvec import int8_rows_to_copy_binary
from vaultctx.index.postgres.vectors import (
    MAX_BUILD_MEMORY_MB,
    build_memory_mb,
    ensure_halfvec_table,
    ensure_hnsw_indexes,
    graph_memory_mb,
)

TABLES = {
    "files": "SELECT path, mtime_ns, size, content_hash, title, type, status, front_matter, "
    "tags, aliases, problems FROM files ORDER BY path",
    "chunks": "SELECT f.path, c.ordinal, c.section, c.heading_path, c.body, c.heading_context, "
    "c.text_hash, c.mtime_ns, c.embedded_at IS NULL, c.quality_embedded_at IS NULL, c.lang "
    "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal",
    "file_tags": "SELECT f.path, t.tag FROM file_tags t JOIN files f ON f.id = t.file_id "
    "ORDER BY f.path, t.tag",
    "links": "SELECT f.path, l.target, l.heading, l.block, l.alias, l.kind, l.line FROM links l "
    "JOIN files f ON f.id = l.file_id ORDER BY f.path, l.line, l.target",
    "vectors": "SELECT f.path, c.ordinal, v.embedding FROM chunk_vecs v "
    "JOIN chunks c ON c.id = v.rowid JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal",
}


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "plan.md").write_text(
        "---\ntags: [ops, Lighthouse]\nstatus: draft\ntype: plan\n---\n"
        "# Lighthouse plan\n\nShip the keeper's log. See [[Keeper log#Dusk|the log]] and "
        "[[sub/tides]].\n\n## Tabs\tand\\backslashes\n\nA line with a tab\there, a backslash \\ "
        "and ünïcödé, emoji 🕯️, CJK 灯台.\n"
    )
    (vault / "Keeper log.md").write_text(
        "# Keeper log\n\n## Dusk\n\nThe lamp was lit at dusk. #log\n\n"
        + "\n\n".join(f"## Night {n}\n\nThe tide turned at {n} o'clock." for n in range(30))
    )
    (vault / "sub" / "tides.md").write_text("# Tides\n\nEmpty headings below.\n\n##\n\n###\n")
    (vault / "empty.md").write_text("")
    return vault


def _rows(location: Path | PostgresLocation) -> dict[str, list[tuple[object, ...]]]:
    db = open_index(location, readonly=True)
    try:
        return {
            name: [
                tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                for row in db.execute(sql)
            ]
            for name, sql in TABLES.items()
        }
    finally:
        db.close()


def test_copied_rows_equal_the_sqlite_stores(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    Indexer(Config(vault=vault, db=tmp_path / "index.db"), StaticEmbedder()).run(fast=True)
    found, expected = _rows(location), _rows(tmp_path / "index.db")
    assert all(expected[name] for name in TABLES), "the vault exercises every table"
    for name in TABLES:
        assert found[name] == expected[name], name


def test_vectors_round_trip_through_binary_copy(tmp_path: Path, postgres_url: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = open_index(PostgresLocation(postgres_url, str(vault)))
    try:
        extremes = np.array([-128, 127, 0, -1, 1, 64, -65, 3], dtype=np.int8)
        rows = [(7, extremes.tobytes()), (2**40, np.roll(extremes, 3).tobytes())]
        with db.transaction():
            ensure_halfvec_table(db, "chunk_vecs", len(extremes))
            db.insert_vectors("chunk_vecs", rows)
        stored = db.execute("SELECT rowid, embedding FROM chunk_vecs ORDER BY rowid").fetchall()
        assert [(int(r), bytes(v)) for r, v in stored] == rows
        text = db.execute("SELECT embedding::text FROM chunk_vecs WHERE rowid = 7").fetchone()
        assert text[0] == "[-128,127,0,-1,1,64,-65,3]"
    finally:
        db.close()


def test_a_batch_of_mixed_dimensions_is_refused() -> None:
    with pytest.raises(ValueError, match="different dimensions"):
        int8_rows_to_copy_binary([(1, b"\x01\x02"), (2, b"\x01\x02\x03")])


def test_the_graph_gets_memory_for_its_size_only_while_it_is_built(
    tmp_path: Path, postgres_url: str
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = open_index(PostgresLocation(postgres_url, str(vault)))
    try:
        server_default = db.execute("SHOW maintenance_work_mem").fetchone()[0]
        assert server_default == "64MB"  # the test server's: the figures below assume it
        rng = np.random.default_rng(1)
        rows = [(i, rng.integers(-128, 128, 256, dtype=np.int8).tobytes()) for i in range(2000)]
        with db.transaction():
            ensure_halfvec_table(db, "chunk_vecs", 256)
            db.insert_vectors("chunk_vecs", rows)
        assert build_memory_mb(db, "chunk_vecs") == 64  # never below the server's own
        with db.transaction():
            db.execute("SET LOCAL maintenance_work_mem = '1MB'")
            assert build_memory_mb(db, "chunk_vecs") == graph_memory_mb(2000, 256) == 4
        db.execute("SET maintenance_work_mem = '1MB'")  # this session's own, kept after the build
        ensure_hnsw_indexes(db, ["chunk_vecs"])
        assert db.execute("SHOW maintenance_work_mem").fetchone()[0] == "1MB"
        index = db.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_vecs_hnsw'"
        ).fetchone()
        assert index is not None and "halfvec_cosine_ops" in index[0]
    finally:
        db.close()


def test_powershells_graph_fits_in_its_build_memory() -> None:
    # 130,470 vectors of 256 dimensions outgrew 64 MB after 52,683 (pgvector's notice): 1.27 kB
    # a vector. A quarter more than that for all of them, and a cap for much larger vaults.
    needed = 130_470 * 64 * 2**20 // 52_683
    assert needed < graph_memory_mb(130_470, 256) * 2**20 < needed * 1.5
    assert graph_memory_mb(2_000_000, 768) > MAX_BUILD_MEMORY_MB == 1024


def test_only_the_indexers_session_skips_the_flush_wait(tmp_path: Path, postgres_url: str) -> None:
    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    writer, reader = open_index(location), open_index(location, readonly=True)
    try:
        commit_without_flush_wait(writer)
        assert writer.execute("SHOW synchronous_commit").fetchone()[0] == "off"
        assert reader.execute("SHOW synchronous_commit").fetchone()[0] == "on"
    finally:
        writer.close()
        reader.close()


def test_searches_look_at_200_hnsw_candidates(tmp_path: Path, postgres_url: str) -> None:
    """Fewer missed neighbours of the 30 a hybrid search asks for on a large vault (vectors.py)."""
    from vaultctx.api import Vault

    vault = _vault(tmp_path)
    location = PostgresLocation(postgres_url, str(vault))
    opened = Vault(vault, db=location)
    try:
        opened.index(fast=True)
        assert opened.search("lamp at dusk", limit=5, mode="hybrid").results
        db = opened.retriever().db
        assert db.execute("SHOW hnsw.ef_search").fetchone()[0] == "200"
    finally:
        opened.close()
