"""Vectors in pgvector: ``halfvec(dim)`` columns with an HNSW index for cosine distance.

The SQLite store keeps int8 vectors (sqlite-vec, cosine). Every int8 value is exact as a half
float and cosine ignores scale, so a ``halfvec`` of the same values ranks the same at 2 bytes a
dimension, half of ``vector``'s 4, and HNSW (``halfvec_cosine_ops``) answers the unfiltered
nearest-chunk query. A query limited to some notes must return the exact top k of their chunks,
which an HNSW scan followed by a filter does not promise; it is answered by an exact scan of the
allowed chunks' vectors instead (the ``+ 0`` keeps the planner off the index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vaultctx.index.database import IndexDatabase
from vaultctx.index.postgres.halfvec import (
    halfvec_binary_to_int8,
    halfvec_text_to_int8,
    int8_to_halfvec_text,
)

# HNSW looks at this many candidates per query (pgvector's default is 40): at least the number
# of results asked for, else a query for 100 neighbours returns 40.
MIN_EF_SEARCH = 100


def register_halfvec(conn: Any) -> None:
    """Read ``halfvec`` values as the int8 bytes the SQLite store returns."""
    from psycopg.adapt import Loader
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(conn, "halfvec")
    if info is None:
        return

    class _Text(Loader):
        def load(self, data: Any) -> bytes:
            return halfvec_text_to_int8(data)

    class _Binary(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:
            return halfvec_binary_to_int8(data)

    conn.adapters.register_loader(info.oid, _Text)
    conn.adapters.register_loader(info.oid, _Binary)


def ensure_halfvec_table(db: IndexDatabase, table: str, dimension: int) -> bool:
    layout = f"halfvec[{dimension}]"
    if db.meta(f"{table}.layout") != layout and db.has_table(table):
        db.execute(f"DROP TABLE {table}")
    if not db.has_table(table):
        db.execute(
            f"CREATE TABLE {table} (rowid bigint PRIMARY KEY, embedding halfvec({dimension}) "
            "NOT NULL)"
        )
    db.set_meta(f"{table}.layout", layout)
    return True


def ensure_hnsw_indexes(db: IndexDatabase, tables: Sequence[str]) -> None:
    """Build the HNSW index of each vector table that lacks one. A new table is filled first and
    indexed after: 5,747 inserts of 256 dimensions took 30.1 s into an indexed table, 0.7 s plus a
    6.6 s build this way (docs/benchmarks.md). Until then a search scans exactly, which is right,
    only slower."""
    for table in tables:
        if db.has_table(table):
            db.execute(
                f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} "
                "USING hnsw (embedding halfvec_cosine_ops)"
            )


def nearest(
    db: Any, table: str, query: bytes, limit: int, file_ids: Sequence[int] | None
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first, as ``vector_queries.nearest_chunks``."""
    vector = int8_to_halfvec_text(query)
    if file_ids is None:
        _set_ef_search(db, limit)
        rows = db.run(
            f"SELECT rowid, embedding <=> %s::halfvec AS d FROM {table} ORDER BY d LIMIT %s",
            (vector, limit),
        )
    else:
        rows = db.run(
            f"SELECT v.rowid, (v.embedding <=> %s::halfvec) + 0 AS d FROM chunks c "
            f"JOIN {table} v ON v.rowid = c.id WHERE c.file_id = ANY(%s) "
            "ORDER BY d, v.rowid LIMIT %s",
            (vector, list(file_ids), limit),
        )
    return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]


def _set_ef_search(db: Any, limit: int) -> None:
    wanted = max(MIN_EF_SEARCH, limit)
    if getattr(db, "_ef_search", None) != wanted:
        db.run(f"SET hnsw.ef_search = {int(wanted)}")
        db._ef_search = wanted
