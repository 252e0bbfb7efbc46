"""Keyword ranking with FTS5's BM25, weighting the chunk text over its headings."""

from __future__ import annotations

import json
from collections.abc import Sequence

from vaultctx.index.db import IndexDatabase
from vaultctx.search.fts_query import build_fts_query
from vaultctx.text.lexical import FTS_ANALYZER_META

BM25_WEIGHTS = (1.0, 0.5, 0.3)  # chunk_text, section, heading_context
BM25_TOP_K = 30


def bm25_search(
    db: IndexDatabase,
    query: str,
    k: int = BM25_TOP_K,
    *,
    file_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, bm25 score) best first; FTS5's bm25() is negative, lower is better.

    ``file_ids`` keeps only chunks of those notes, inside the query, so the top ``k`` are the best
    of the allowed notes (search filters).
    """
    # Analyse the query as the index was analysed, which may differ from this process's default.
    match = build_fts_query(query, db.meta(FTS_ANALYZER_META))
    if match is None or (file_ids is not None and not file_ids):
        return []
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    join, restrict, params = "", "", [match]
    if file_ids is not None:
        # CROSS JOIN keeps FTS as the outer loop: one MATCH, then a lookup per hit. `rowid IN
        # (…)` instead makes SQLite re-run the MATCH per allowed rowid (seconds at 130k chunks).
        join = " CROSS JOIN chunks c ON c.id = chunks_fts.rowid"
        restrict = " AND c.file_id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(file_ids)))
    rows = db.execute(
        f"SELECT chunks_fts.rowid, bm25(chunks_fts, {weights}) AS score FROM chunks_fts{join} "
        f"WHERE chunks_fts MATCH ?{restrict} ORDER BY score LIMIT ?",
        [*params, k],
    )
    return [(int(rowid), float(score)) for rowid, score in rows]
