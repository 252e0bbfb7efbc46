"""Whether the keyword index holds any Korean, recorded at index time.

Kiwi (the Korean analyser) costs ~2 s and ~330 MB to load. A long-lived reader (the MCP server)
used to load it for every index built with Kiwi installed, English vaults included, because the
analyser's name is recorded whatever the text. The indexer now also records whether any FTS row
it wrote holds Hangul, so readers load Kiwi only for an index that has Korean to match: a Korean
query against an index without Hangul matches no Korean token, whatever the analysis.

``HANGUL_META`` is "1" once any row with Hangul was written (never cleared by deletions: a stale
"1" only costs the load), "0" while none was. Absent means an index from before this record:
readers assume Korean may be there, and the next index run finds out once.
"""

from __future__ import annotations

from collections.abc import Iterable

from vaultctx.index.db import IndexDatabase
from vaultctx.index.text_codec import unpack_text
from vaultctx.text.cjk import HANGUL_RUN

HANGUL_META = "fts_hangul"


def has_hangul(texts: Iterable[str]) -> bool:
    # isascii() is a flag lookup for most strings: English text never reaches the regex.
    return any(not text.isascii() and HANGUL_RUN.search(text) for text in texts)


def index_has_hangul(db: IndexDatabase) -> bool:
    """False only when the index is known to hold no Korean (see the module docstring)."""
    return db.meta(HANGUL_META) != "0"


def note_fts_rows(db: IndexDatabase, rows: Iterable[tuple[int, tuple[str, str, str]]]) -> None:
    """Record Hangul in rows about to be written to the FTS table (inside their transaction)."""
    if db.meta(HANGUL_META) != "1" and any(has_hangul(columns) for _, columns in rows):
        db.set_meta(HANGUL_META, "1")


def ensure_recorded(db: IndexDatabase) -> None:
    """Give an index without the record one: "0" when empty, else from one pass over its
    chunks (once per index built before this record existed)."""
    if db.meta(HANGUL_META) is not None:
        return
    found = False
    last_id = 0
    while not found:
        batch = [
            (int(cid), unpack_text(body), str(section), str(context))
            for cid, body, section, context in db.execute(
                "SELECT id, body, section, heading_context FROM chunks WHERE id > ? ORDER BY id "
                "LIMIT 1000",
                (last_id,),
            )
        ]
        if not batch:
            break
        found = any(has_hangul(texts) for _, *texts in batch)
        last_id = batch[-1][0]
    with db.transaction():
        db.set_meta(HANGUL_META, "1" if found else "0")
