"""Which languages the index's chunks are in: counted by the indexer, read by search and status.

The counts live in ``model_meta`` so a search reads one row per query instead of grouping the
chunks table; every pass 1 that changes chunks counts them again (over the ``chunks_lang`` index).
"""

from __future__ import annotations

import json

from vaultctx.index.db import IndexDatabase
from vaultctx.index.schema import META_CHUNK_LANGUAGES


def count_chunk_languages(db: IndexDatabase) -> dict[str, int]:
    return {
        str(lang): int(count)
        for lang, count in db.execute("SELECT lang, count(*) FROM chunks GROUP BY lang")
    }


def record_chunk_languages(db: IndexDatabase) -> None:
    """Store the counts; call inside the writer's transaction."""
    db.set_meta(META_CHUNK_LANGUAGES, json.dumps(count_chunk_languages(db), sort_keys=True))


def chunk_languages(db: IndexDatabase) -> dict[str, int]:
    """The recorded counts ({} for an index that has none recorded)."""
    stored = db.meta_json(META_CHUNK_LANGUAGES)
    if not isinstance(stored, dict):
        return {}
    return {str(lang): int(count) for lang, count in stored.items() if int(count) > 0}
