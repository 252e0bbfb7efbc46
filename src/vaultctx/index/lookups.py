"""Small questions about what the index holds, asked by features above the indexer."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from vaultctx.db_location import IndexLocation
from vaultctx.index.db import IndexDatabase, IndexDatabaseError, open_index


def file_is_indexed(db_path: IndexLocation, path: str) -> bool:
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


ListedNote = tuple[str, str, str | None, str | None, str, int]


def newest_notes(db: IndexDatabase, file_ids: Sequence[int], limit: int) -> list[ListedNote]:
    """(path, title, type, status, tags as JSON, mtime_ns) of the ``limit`` most recently
    modified of the notes ``file_ids``, ties by path."""
    rows: Iterator[ListedNote] = db.execute(
        "SELECT f.path, f.title, f.type, f.status, f.tags, f.mtime_ns FROM files f "
        "WHERE f.id IN (SELECT value FROM json_each(?)) "
        "ORDER BY f.mtime_ns DESC, f.path LIMIT ?",
        (json.dumps(list(file_ids)), limit),
    )
    return list(rows)


def top_level_folders(db: IndexDatabase) -> list[str]:
    """The vault's top-level folders holding an indexed note, sorted."""
    return sorted(
        {
            str(row[0]).split("/", 1)[0]
            for row in db.execute("SELECT path FROM files WHERE instr(path, '/') > 0")
        }
    )
