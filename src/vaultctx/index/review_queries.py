"""Questions the approval flows ask the index (docs/review.md)."""

from __future__ import annotations

from pathlib import Path

from vaultctx.index.db import IndexDatabaseError, open_index


def common_tags(db_path: Path, limit: int) -> list[str]:
    """The ``limit`` tags most notes carry, most first (ties by name), spelled as the first note
    carrying them spells them; [] without an index."""
    try:
        db = open_index(db_path, readonly=True)
    except IndexDatabaseError:
        return []
    try:
        rows = db.execute(
            "SELECT MIN(tag), COUNT(DISTINCT file_id) AS notes FROM file_tags "
            "GROUP BY lower(tag) ORDER BY notes DESC, lower(tag) LIMIT ?",
            (limit,),
        )
        return [str(row[0]) for row in rows]
    finally:
        db.close()
