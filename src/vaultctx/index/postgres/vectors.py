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
    int8_rows_to_copy_binary,
    int8_to_halfvec_text,
)

# HNSW looks at this many candidates per query (pgvector's default is 40), and at least the
# number of results asked for. On the PowerShell docs (130,470 chunks, many identical vectors) the
# hybrid search's 30 neighbours were within the exact 30th distance for 94.7 % of hits at 100
# (one query 13 %), 99.0 % at 200 (worst 80 %), no better at 400; 200 cost 0.8 ms more of server
# time (1.1 -> 1.9 ms, docs/benchmarks.md).
MIN_EF_SEARCH = 200


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


def copy_vectors(conn: Any, table: str, rows: Sequence[tuple[int, bytes]]) -> None:
    """Append ``(chunk id, int8 vector)`` rows in one binary COPY (halfvec.py spells it)."""
    if not rows:
        return
    data = int8_rows_to_copy_binary(rows)
    statement = f"COPY {table} (rowid, embedding) FROM STDIN (FORMAT BINARY)"
    with conn.cursor() as cursor, cursor.copy(statement) as copy:
        copy.write(data)


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
    for table in missing_hnsw_indexes(db, tables):
        with db.transaction():
            db.execute(f"SET LOCAL maintenance_work_mem = '{build_memory_mb(db, table)}MB'")
            db.execute(
                f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} "
                "USING hnsw (embedding halfvec_cosine_ops)"
            )


def missing_hnsw_indexes(db: IndexDatabase, tables: Sequence[str]) -> list[str]:
    """The vector tables among ``tables`` that exist and have no HNSW index yet."""
    return [t for t in tables if db.has_table(t) and not _has_index(db, f"{t}_hnsw")]


# pgvector builds the graph in memory while it fits in maintenance_work_mem, and much more slowly
# on disk after (PowerShell's 130,470 vectors of 256 dimensions outgrew the server's default 64 MB
# at 52,683). Measured there: about 1.27 kB a vector at 256 dimensions, so 2 bytes a dimension plus
# 768 for its neighbours and bookkeeping, with a quarter more to spare.
_BYTES_PER_VECTOR_BEYOND_VALUES = 768
MAX_BUILD_MEMORY_MB = 1024


def build_memory_mb(db: IndexDatabase, table: str) -> int:
    """maintenance_work_mem for building ``table``'s graph in memory: never below the server's own
    setting, at most ``MAX_BUILD_MEMORY_MB`` (a larger table is built partly on disk, as before).
    Only the build's own transaction uses it."""
    row = db.execute(
        f"SELECT count(*), coalesce(max(vector_dims(embedding)), 0) FROM {table}"
    ).fetchone()
    current = db.execute(
        "SELECT setting::bigint / 1024 FROM pg_settings WHERE name = 'maintenance_work_mem'"
    ).fetchone()
    return max(int(current[0]), min(graph_memory_mb(int(row[0]), int(row[1])), MAX_BUILD_MEMORY_MB))


def graph_memory_mb(rows: int, dimension: int) -> int:
    """What pgvector's graph of ``rows`` vectors needs, in MB, with a quarter to spare."""
    per_vector = 2 * dimension + _BYTES_PER_VECTOR_BEYOND_VALUES
    return rows * per_vector * 5 // 4 // 2**20 + 1


def _has_index(db: IndexDatabase, name: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?", (name,)
    ).fetchone()
    return row is not None


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
