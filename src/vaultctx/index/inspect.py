"""Named read-only queries over the index for the layers above it: status, doctor, citations.

The SQL and the schema's names stay in ``index/``; callers ask questions ("how many notes have
problems?") and never spell a table name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from vaultctx.index.db import IndexDatabase
from vaultctx.index.quality_pass import quality_coverage, stored_quality_pass
from vaultctx.index.schema import META_FTS_TOKENIZER, QUALITY_TABLE, VECTOR_TABLE
from vaultctx.index.text_codec import unpack_text


@dataclass(frozen=True)
class IndexCounts:
    files: int
    chunks: int
    vectors: int  # pass-1 vectors stored (0 without sqlite-vec)
    quality_vectors: int  # chunks in pass 2's scope with its vector
    # Chunks in pass 2's scope: fewer than ``chunks`` when it leaves some to the multilingual
    # vectors (multilingual_pass.py), which then do not count as pass 2 left undone.
    quality_chunks: int
    notes_with_problems: int


def counts(db: IndexDatabase) -> IndexCounts:
    vectors_readable = db.capabilities.vectors
    quality = (0, 0)
    if vectors_readable and db.has_table(QUALITY_TABLE):
        quality = quality_coverage(db, stored_quality_pass(db))
    return IndexCounts(
        files=_count(db, "SELECT count(*) FROM files"),
        chunks=_count(db, "SELECT count(*) FROM chunks"),
        vectors=(
            _count(db, f"SELECT count(*) FROM {VECTOR_TABLE}")
            if vectors_readable and db.has_table(VECTOR_TABLE)
            else 0
        ),
        quality_vectors=quality[0],
        quality_chunks=quality[1],
        notes_with_problems=_count(db, "SELECT count(*) FROM files WHERE problems != '[]'"),
    )


def has_vector_table(db: IndexDatabase) -> bool:
    return db.capabilities.vectors and db.has_table(VECTOR_TABLE)


def fts_tokenizer(db: IndexDatabase) -> str | None:
    return db.meta(META_FTS_TOKENIZER)


def notes_with_problems(db: IndexDatabase, limit: int) -> list[tuple[str, list[str]]]:
    """(path, problems) of the first ``limit`` notes indexed with a reported problem."""
    rows = db.execute(
        "SELECT path, problems FROM files WHERE problems != '[]' ORDER BY path LIMIT ?", (limit,)
    )
    return [(str(path), [str(p) for p in json.loads(str(problems))]) for path, problems in rows]


def sample_chunk_texts(db: IndexDatabase, samples: int) -> list[str]:
    """About ``samples`` chunk texts spread evenly over the index (a cheap language estimate)."""
    bounds = db.execute("SELECT min(id), max(id) FROM chunks").fetchone()
    if bounds is None or bounds[0] is None:
        return []
    low, high = int(bounds[0]), int(bounds[1])
    step = max(1, (high - low) // samples)
    texts = []
    for start in range(low, high + 1, step):
        row = db.execute(
            "SELECT body FROM chunks WHERE id >= ? ORDER BY id LIMIT 1", (start,)
        ).fetchone()
        if row is not None:
            texts.append(unpack_text(row[0]))
    return texts


def note_paths(db: IndexDatabase) -> list[str]:
    """Every indexed path, sorted."""
    return [str(row[0]) for row in db.execute("SELECT path FROM files ORDER BY path")]


def note_aliases(db: IndexDatabase) -> list[tuple[str, str]]:
    """(path, aliases as JSON) of the notes that declare aliases, sorted by path."""
    return [
        (str(path), str(aliases))
        for path, aliases in db.execute(
            "SELECT path, aliases FROM files WHERE aliases != '[]' ORDER BY path"
        )
    ]


def _count(db: IndexDatabase, sql: str) -> int:
    return int(db.scalar(sql))
