"""Small questions about what the index holds, asked by features above the indexer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vaultctx.index.db import IndexDatabase, IndexDatabaseError, open_index


def file_is_indexed(db_path: Path, path: str) -> bool:
    """Whether the vault-relative ``path`` has a row in the index (False without an index)."""
    try:
        db = open_index(db_path, readonly=True)
    except IndexDatabaseError:
        return False
    try:
        return db.execute("SELECT 1 FROM files WHERE path = ?", (path,)).fetchone() is not None
    finally:
        db.close()


def indexed_paths_among(db: IndexDatabase, paths: Sequence[str]) -> list[str]:
    """Those of ``paths`` that the index holds, spelled exactly."""
    marks = ", ".join("?" * len(paths))
    rows = db.execute(f"SELECT path FROM files WHERE path IN ({marks})", list(paths))
    return [str(row[0]) for row in rows]
