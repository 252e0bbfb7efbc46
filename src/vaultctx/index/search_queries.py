"""The reads a search makes of the chunk, file and FTS tables, as named questions.

``search/`` decides what to ask and how to rank; the SQL lives here. Statements of the per-query
path are module constants, so their text is the same on every call and apsw's statement cache
compiles each once per connection. Only lists of chunk ids, whose number of placeholders varies,
are spelled per call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from vaultctx.index.db import POSTGRES, IndexDatabase
from vaultctx.index.quality_pass import QUALITY_PASS, stored_quality_pass
from vaultctx.index.text_codec import unpack_text

# FTS5's bm25() is negative, lower is better; the column weights are bound like any value.
_BM25 = (
    "SELECT chunks_fts.rowid, bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts "
    "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?"
)
# CROSS JOIN keeps FTS as the outer loop: one MATCH, then a lookup per hit. `rowid IN (…)`
# instead makes SQLite re-run the MATCH per allowed rowid (seconds at 130k chunks).
_BM25_IN_NOTES = (
    "SELECT chunks_fts.rowid, bm25(chunks_fts, ?, ?, ?) AS score FROM chunks_fts "
    "CROSS JOIN chunks c ON c.id = chunks_fts.rowid "
    "WHERE chunks_fts MATCH ? AND c.file_id IN (SELECT value FROM json_each(?)) "
    "ORDER BY score LIMIT ?"
)
_TITLE = (
    "SELECT f.id, f.title, c.ordinal, c.id FROM chunks_fts "
    "CROSS JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
    "WHERE chunks_fts MATCH ? ORDER BY c.ordinal"
)
_TITLE_IN_NOTES = (
    "SELECT f.id, f.title, c.ordinal, c.id FROM chunks_fts "
    "CROSS JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
    "WHERE chunks_fts MATCH ? AND c.file_id IN (SELECT value FROM json_each(?)) "
    "ORDER BY c.ordinal"
)
_NOTE_COUNT = "SELECT count(*) FROM files"
_CHUNK_COUNT = "SELECT count(*) FROM chunks"
_TERM_CHUNKS = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
_TERM_IN_CHUNK = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid = ?"


def bm25_candidates(
    db: IndexDatabase,
    match: str,
    limit: int,
    weights: tuple[float, float, float],
    file_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, bm25 score) best (lowest) first for the FTS5 expression ``match``.

    ``weights`` are those of chunk text, section and heading context; ``file_ids`` keeps only
    chunks of those notes inside the query, so the top ``limit`` are the best of those notes.
    """
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.fts import bm25

        return bm25(db, match, limit, weights, file_ids)
    if file_ids is None:
        rows = db.execute(_BM25, (*weights, match, limit))
    else:
        rows = db.execute(_BM25_IN_NOTES, (*weights, match, json.dumps(list(file_ids)), limit))
    return [(int(rowid), float(score)) for rowid, score in rows]


def term_spread(
    db: IndexDatabase, phrases: Sequence[str], chunk_id: int
) -> tuple[int, list[tuple[int, bool]]]:
    """The number of chunks, and for each FTS5 phrase how many chunks hold it and whether chunk
    ``chunk_id`` does: the same counts on both stores, so both rank a question alike."""
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.fts import matching_chunks

        holding = [matching_chunks(db, phrase) for phrase in phrases]
        spread = [(len(chunks), chunk_id in chunks) for chunks in holding]
    else:
        spread = [
            (
                int(db.scalar(_TERM_CHUNKS, (phrase,))),
                bool(db.scalar(_TERM_IN_CHUNK, (phrase, chunk_id))),
            )
            for phrase in phrases
        ]
    return int(db.scalar(_CHUNK_COUNT) or 0), spread


def title_candidates(
    db: IndexDatabase, match: str, file_ids: Sequence[int] | None = None
) -> list[tuple[int, str, int]]:
    """(note id, title, chunk id) of the chunks matching ``match``, by position in their note,
    so each note's first matching chunk comes before its later ones."""
    if db.dialect == POSTGRES:
        return _title_candidates_postgres(db, match, file_ids)
    if file_ids is None:
        rows = db.execute(_TITLE, (match,))
    else:
        rows = db.execute(_TITLE_IN_NOTES, (match, json.dumps(list(file_ids))))
    return [(int(note), str(title), int(chunk)) for note, title, _, chunk in rows]


def _title_candidates_postgres(
    db: IndexDatabase, match: str, file_ids: Sequence[int] | None
) -> list[tuple[int, str, int]]:
    from vaultctx.index.postgres.fts import matching_notes

    rows = matching_notes(db, match)
    allowed = None if file_ids is None else set(file_ids)
    return [
        (int(note), str(title), int(chunk))
        for note, title, _, chunk in rows
        if allowed is None or int(note) in allowed
    ]


def passages(db: IndexDatabase, chunk_ids: Sequence[int]) -> dict[int, tuple[str, str, str, str]]:
    """chunk id → (path, title, section, text) for those of ``chunk_ids`` still indexed."""
    if not chunk_ids:
        return {}
    rows = db.execute(
        "SELECT c.id, f.path, f.title, c.section, c.body FROM chunks c "
        "JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))",
        _id_list(chunk_ids),
    )
    return {int(r[0]): (str(r[1]), str(r[2]), str(r[3]), unpack_text(r[4])) for r in rows}


def chunk_notes(db: IndexDatabase, chunk_ids: Sequence[int]) -> dict[int, int]:
    """chunk id → the id of the note it belongs to, for those of ``chunk_ids`` still indexed."""
    if not chunk_ids:
        return {}
    rows = db.execute(
        "SELECT id, file_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        _id_list(chunk_ids),
    )
    return {int(chunk_id): int(note_id) for chunk_id, note_id in rows}


def _id_list(ids: Sequence[int]) -> tuple[str]:
    """A search's ids as one JSON list, not a placeholder each: one statement text however many
    there are, so PostgreSQL's reader prepares and plans it once (``= ANY``, postgres/dialect.py)
    instead of once per count of ids, each count planned afresh for its first five runs."""
    return (json.dumps([int(i) for i in ids]),)


def quality_vectors_complete(db: IndexDatabase, *, scoped: bool = True) -> bool:
    """Whether pass 2 has given every chunk in its scope its vector (one lookup in a partial
    index): a chunk it leaves to the multilingual vectors never keeps it partial. ``scoped``
    False: every chunk, for a search that cannot read the multilingual vectors."""
    target = stored_quality_pass(db) if scoped else QUALITY_PASS
    return not db.scalar(
        f"SELECT EXISTS(SELECT 1 FROM chunks WHERE {target.stamp} IS NULL AND {target.scope})"
    )


def note_count(db: IndexDatabase) -> int:
    return int(db.scalar(_NOTE_COUNT))


def chunks_not_in(db: IndexDatabase, chunk_ids: Sequence[int], lang: str) -> set[int]:
    """The chunks among ``chunk_ids`` whose language (``chunks.lang``) is not ``lang``."""
    if not chunk_ids:
        return set()
    marks = ",".join("?" * len(chunk_ids))
    rows = db.execute(
        f"SELECT id FROM chunks WHERE id IN ({marks}) AND lang != ?", [*chunk_ids, lang]
    )
    return {int(row[0]) for row in rows}
