"""Copy one vault's index to another store (``vaultctx db copy``): SQLite file to PostgreSQL or
back, vectors included, nothing re-embedded.

Rows are copied as they are, ids included, so the target answers every search exactly as the
source does. The keyword index is the one part not copied: FTS5's contentless table cannot give
its rows back, and each store keeps it in its own shape, so each chunk's stored text is analysed
again (the same analysis the indexer runs). What a copy saves is embedding: on SciFact's 5,747
chunks a copy to PostgreSQL took 32 s against 30 s for indexing there afresh with the static
model alone (both are PostgreSQL's writes), but the transformer's pass 2, which a copy carries
over, runs for minutes (bench/db_copy_speed.py, docs/benchmarks.md). The target must hold no
index of this vault yet: a copy never merges into, or overwrites, an index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from vaultctx.index.database import IndexDatabase, IndexDatabaseError
from vaultctx.index.db import ensure_vector_table
from vaultctx.index.indexer import (
    CHUNK_COLUMNS,
    FILE_COLUMNS,
    LINK_COLUMNS,
    analyse_stored_chunks,
    index_vectors,
)
from vaultctx.index.schema import VECTOR_TABLES
from vaultctx.index.vector_queries import stored_vectors, vector_dimension

# The tables and columns both stores have (index/migrations.py, index/postgres/migrations.py).
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("files", FILE_COLUMNS),
    # The indexer's chunk rows leave the multilingual pass's mark to that pass; a copy keeps it.
    ("chunks", (*CHUNK_COLUMNS, "multi_embedded_at")),
    ("file_tags", ("file_id", "tag")),
    ("links", LINK_COLUMNS),
)
BATCH = 1000


class TargetNotEmptyError(IndexDatabaseError):
    """The target already holds an index of this vault; a copy would overwrite it."""


@dataclass
class CopyReport:
    rows: dict[str, int] = field(default_factory=dict)
    vectors: dict[str, int] = field(default_factory=dict)
    keyword_chunks: int = 0


Progress = Callable[[str, int], None]


def copy_index(
    source: IndexDatabase, target: IndexDatabase, progress: Progress | None = None
) -> CopyReport:
    """Copy every row of ``source`` into the empty ``target`` in one transaction: a copy that
    fails half-way leaves the target as empty as it was."""
    note = progress or (lambda _what, _n: None)
    existing = int(target.scalar("SELECT count(*) FROM files"))
    if existing:
        raise TargetNotEmptyError(
            f"{target.path} already holds an index of this vault ({existing} notes)",
            "copy into an empty database or file; to refresh the index there instead, run "
            "`vaultctx index --db <it>`",
        )
    report = CopyReport()
    with target.transaction():
        for key, value in list(source.execute("SELECT key, value FROM model_meta")):
            target.set_meta(str(key), str(value))
        for table, columns in TABLES:
            report.rows[table] = _copy_rows(source, target, table, columns)
            note(table, report.rows[table])
        for table in VECTOR_TABLES:
            copied = _copy_vectors(source, target, table)
            if copied is not None:
                report.vectors[table] = copied
                note(table, copied)
        report.keyword_chunks = analyse_stored_chunks(target)
        note("keyword index", report.keyword_chunks)
    index_vectors(target)
    return report


def _copy_rows(
    source: IndexDatabase, target: IndexDatabase, table: str, columns: tuple[str, ...]
) -> int:
    names = ", ".join(columns)
    insert = f"INSERT INTO {table}({names}) VALUES ({', '.join('?' * len(columns))})"
    order = "id" if "id" in columns else "file_id"
    copied = 0
    for batch in _batches(source.execute(f"SELECT {names} FROM {table} ORDER BY {order}")):
        target.executemany(insert, [tuple(_plain(value) for value in row) for row in batch])
        copied += len(batch)
    return copied


def _copy_vectors(source: IndexDatabase, target: IndexDatabase, table: str) -> int | None:
    """The vectors of ``table`` as stored (int8), or None when the source has none."""
    if not source.capabilities.vectors or not source.has_table(table):
        return None
    dimension = vector_dimension(source, table)
    if dimension is None or not ensure_vector_table(target, table, dimension):
        return None
    insert = f"INSERT INTO {table}(rowid, embedding) VALUES (?, vec_int8(?))"
    copied = 0
    for batch in _batches(stored_vectors(source, table)):
        target.executemany(insert, batch)
        copied += len(batch)
    return copied


def _batches(rows: Iterator[Any]) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _plain(value: Any) -> Any:
    """bytes for a blob whichever driver read it (psycopg gives bytes, apsw bytes; a memoryview
    from either store's buffer protocol is copied)."""
    return bytes(value) if isinstance(value, memoryview) else value
