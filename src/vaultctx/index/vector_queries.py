"""Reads of the vector tables (sqlite-vec ``vec0``, int8): the nearest chunks to a query, and the
stored vectors for rankers that compare them in Python (vectors in memory, graph expansion).

Only the tables named in ``schema.VECTOR_TABLES`` are read, since their names are spelled into
the SQL; the nearest-chunk statements are built once per table, so their text is the same on
every query and apsw's statement cache compiles each once per connection.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence

from vaultctx.index.db import POSTGRES, IndexDatabase, reporting_vector_damage
from vaultctx.index.schema import VECTOR_TABLES

# sqlite-vec applies a `rowid IN (…)` constraint during the KNN scan: the result is the exact top
# k of the allowed chunks, and a selective filter makes the scan cheaper, not emptier.
_NEAREST = {
    table: (
        f"SELECT rowid, distance FROM {table} WHERE embedding MATCH vec_int8(?) AND k = ? "
        "ORDER BY distance",
        f"SELECT rowid, distance FROM {table} WHERE embedding MATCH vec_int8(?) AND k = ? "
        "AND rowid IN (SELECT id FROM chunks WHERE file_id IN (SELECT value FROM json_each(?))) "
        "ORDER BY distance",
    )
    for table in VECTOR_TABLES
}


def nearest_chunks(
    db: IndexDatabase,
    table: str,
    query: bytes,
    limit: int,
    file_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) of the ``limit`` chunks nearest to the int8 ``query``, best
    first; ``file_ids`` keeps only chunks of those notes."""
    everywhere, in_notes = _NEAREST[_checked(table)]
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.vectors import nearest

        return nearest(db, table, query, limit, file_ids)
    with reporting_vector_damage(db):
        if file_ids is None:
            rows = db.execute(everywhere, (query, limit))
        else:
            rows = db.execute(in_notes, (query, limit, json.dumps(list(file_ids))))
        return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]


def vector_dimension(db: IndexDatabase, table: str) -> int | None:
    """The dimension ``table`` was created with (``db.ensure_vector_table``); None before."""
    layout = db.meta(f"{_checked(table)}.layout")
    return None if layout is None else int(layout.split("[", 1)[1].rstrip("]"))


def vector_count(db: IndexDatabase, table: str) -> int:
    with reporting_vector_damage(db):
        return int(db.scalar(f"SELECT count(*) FROM {_checked(table)}"))


def stored_vectors(db: IndexDatabase, table: str) -> Iterator[tuple[int, bytes]]:
    """(chunk id, int8 vector) of every vector in ``table``, one row at a time: a caller copying
    them into one array never holds them all twice."""
    with reporting_vector_damage(db):
        for rowid, blob in db.execute(f"SELECT rowid, embedding FROM {_checked(table)}"):
            yield int(rowid), bytes(blob)


def every_chunk_note(db: IndexDatabase) -> Iterator[tuple[int, int]]:
    """(chunk id, note id) of every chunk, from the covering index ``chunks_file``: joining the
    vectors to ``chunks`` instead read every page of the chunk texts (through the memory map,
    counted in the process's resident memory: ~150 MB at 130k chunks)."""
    for chunk_id, file_id in db.execute("SELECT id, file_id FROM chunks"):
        yield int(chunk_id), int(file_id)


def note_chunk_vectors(
    db: IndexDatabase, table: str, note_ids: Collection[int]
) -> list[tuple[int, int, bytes]]:
    """(chunk id, note id, int8 vector) of every chunk of the notes ``note_ids``.

    CROSS JOIN keeps ``chunks`` outside, so sqlite-vec is asked for one rowid at a time, which
    it answers from its index; ``rowid IN (…)`` on the vector table scans all of it (90 ms at
    130k vectors). One statement rather than a lookup each is 2–8× faster (bench: ~1 ms for 30
    notes of the PowerShell docs).
    """
    if not note_ids:
        return []
    marks = ",".join("?" * len(note_ids))
    with reporting_vector_damage(db):
        return [
            (int(chunk_id), int(note_id), bytes(blob))
            for chunk_id, note_id, blob in db.execute(
                f"SELECT c.id, c.file_id, v.embedding FROM chunks c CROSS JOIN {_checked(table)} v "
                f"ON v.rowid = c.id WHERE c.file_id IN ({marks})",
                list(note_ids),
            )
        ]


def _checked(table: str) -> str:
    if table not in VECTOR_TABLES:
        raise ValueError(f"{table!r} is not a vector table (one of {', '.join(VECTOR_TABLES)})")
    return table
