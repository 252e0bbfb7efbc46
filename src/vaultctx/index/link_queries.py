"""The rows the link graph is built from (``search/graph.py``): every note's names, and every
link as written. Rows stream from the cursor: the graph of a large vault reads tens of thousands.
"""

from __future__ import annotations

from collections.abc import Iterator

from vaultctx.index.db import IndexDatabase

_NOTES = "SELECT id, path, title, type, aliases FROM files"
_LINKS = (
    "SELECT file_id, target, heading, block, alias, kind, line FROM links ORDER BY file_id, rowid"
)

NoteRow = tuple[int, str, str, str | None, str]
LinkRow = tuple[int, str, str | None, str | None, str | None, str, int]


def linkable_notes(db: IndexDatabase) -> Iterator[NoteRow]:
    """(note id, path, title, type, aliases as JSON) of every indexed note."""
    rows: Iterator[NoteRow] = db.execute(_NOTES)
    return rows


def written_links(db: IndexDatabase) -> Iterator[LinkRow]:
    """(note id, target, heading, block, alias, kind, line) of every link, by note and then in
    the order the note writes them."""
    rows: Iterator[LinkRow] = db.execute(_LINKS)
    return rows
