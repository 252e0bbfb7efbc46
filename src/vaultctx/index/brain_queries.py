"""The reads the Second Brain's offline reports make (``brain/``): each note's size and age, and
the vector of its first chunk. Rows stream from the cursor: a large vault has 100k+ chunks.
"""

from __future__ import annotations

from collections.abc import Iterator

from vaultctx.index.db import IndexDatabase
from vaultctx.index.schema import VECTOR_TABLES
from vaultctx.index.text_codec import unpack_text

_NOTES = "SELECT id, path, title, mtime_ns, size FROM files"
_CHUNK_BODIES = "SELECT file_id, body FROM chunks"
_ORDERED_BODIES = "SELECT file_id, body FROM chunks ORDER BY file_id, ordinal"
# Every chunk's vector in reading order, so the first usable one of each note comes first.
# CROSS JOIN keeps ``chunks`` outside: sqlite-vec answers one rowid at a time from its index.
_ORDERED_VECTORS = {
    table: (
        f"SELECT c.file_id, v.embedding FROM chunks c CROSS JOIN {table} v ON v.rowid = c.id "
        "ORDER BY c.file_id, c.ordinal"
    )
    for table in VECTOR_TABLES
}

NoteRow = tuple[int, str, str, int, int]


def note_rows(db: IndexDatabase) -> Iterator[NoteRow]:
    """(note id, path, title, mtime_ns, size in bytes) of every indexed note."""
    rows: Iterator[NoteRow] = db.execute(_NOTES)
    return rows


def note_text_lengths(db: IndexDatabase) -> dict[int, int]:
    """note id → characters of its indexed text (the sum of its chunks; a note without chunks,
    empty or only front matter, is absent)."""
    lengths: dict[int, int] = {}
    for file_id, body in db.execute(_CHUNK_BODIES):
        note = int(file_id)
        lengths[note] = lengths.get(note, 0) + len(unpack_text(body))
    return lengths


def ordered_chunk_vectors(db: IndexDatabase, table: str) -> Iterator[tuple[int, bytes]]:
    """(note id, int8 vector) of every chunk with a vector in ``table``, by note and then in
    the order the note reads."""
    if table not in _ORDERED_VECTORS:
        raise ValueError(f"{table!r} is not a vector table (one of {', '.join(VECTOR_TABLES)})")
    for file_id, blob in db.execute(_ORDERED_VECTORS[table]):
        yield int(file_id), bytes(blob)


def ordered_chunk_texts(db: IndexDatabase) -> Iterator[tuple[int, str]]:
    """(note id, chunk text) of every chunk, by note and then in the order the note reads."""
    for file_id, body in db.execute(_ORDERED_BODIES):
        yield int(file_id), unpack_text(body)
