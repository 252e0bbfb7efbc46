"""The chunk hashes the Second Brain records as a synthesis note's sources, and reads back to
tell whether those sources changed (docs/second-brain.md#provenance-and-staleness).

The hash is the indexer's own ``chunks.text_hash`` (128 bits of the chunk's text and heading
context), so "changed" means exactly what makes the indexer re-embed a chunk.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from vaultctx.index.db import IndexDatabase

ChunkSource = tuple[str, str, bytes]  # (path, heading path, text hash)


def chunk_sources(db: IndexDatabase, chunk_ids: Sequence[int]) -> dict[int, ChunkSource]:
    """(path, heading path, text hash) of each chunk of ``chunk_ids`` the index still holds."""
    rows = db.execute(
        "SELECT c.id, f.path, c.heading_path, c.text_hash FROM chunks c "
        "JOIN files f ON f.id = c.file_id "
        "WHERE c.id IN (SELECT value FROM json_each(?))",
        (json.dumps([int(chunk_id) for chunk_id in chunk_ids]),),
    )
    return {int(row[0]): (str(row[1]), str(row[2]), bytes(row[3])) for row in rows}


def chunk_hashes_by_path(db: IndexDatabase, paths: Sequence[str]) -> dict[str, set[bytes]]:
    """The text hashes of the current chunks of each of ``paths`` the index holds (a path it
    does not hold is absent from the result)."""
    found: dict[str, set[bytes]] = {}
    rows = db.execute(
        "SELECT f.path, c.text_hash FROM files f JOIN chunks c ON c.file_id = f.id "
        "WHERE f.path IN (SELECT value FROM json_each(?))",
        (json.dumps(list(paths)),),
    )
    for path, text_hash in rows:
        found.setdefault(str(path), set()).add(bytes(text_hash))
    return found
