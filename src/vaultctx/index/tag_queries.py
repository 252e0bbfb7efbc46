"""The vault's tags as the index holds them (front matter and inline, per note, de-duplicated
case-insensitively by the indexer): what ``vaultctx tags`` offers the model to reuse."""

from __future__ import annotations

from vaultctx.index.db import IndexDatabase

# Spelled as most notes spell it; COLLATE NOCASE groups "Python" with "python".
_TAG_COUNTS = (
    "SELECT MIN(tag), COUNT(DISTINCT file_id) AS notes FROM file_tags "
    "GROUP BY tag COLLATE NOCASE ORDER BY notes DESC, MIN(tag) LIMIT ?"
)


def tag_counts(db: IndexDatabase, limit: int) -> list[tuple[str, int]]:
    """(tag, number of notes carrying it), most used first, at most ``limit`` tags."""
    return [(str(tag), int(notes)) for tag, notes in db.execute(_TAG_COUNTS, (limit,))]
