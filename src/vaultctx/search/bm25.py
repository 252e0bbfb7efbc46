"""Keyword ranking with FTS5's BM25, weighting the chunk text over its headings."""

from __future__ import annotations

from collections.abc import Sequence

from vaultctx.index.db import IndexDatabase
from vaultctx.index.hangul import index_has_hangul
from vaultctx.index.search_queries import bm25_candidates
from vaultctx.search.fts_query import build_fts_query
from vaultctx.search.ranking_constants import BM25_TOP_K, BM25_WEIGHTS
from vaultctx.text.lexical import FTS_ANALYZER_META


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
    match = build_fts_query(query, db.meta(FTS_ANALYZER_META), index_korean=index_has_hangul(db))
    if match is None or (file_ids is not None and not file_ids):
        return []
    return bm25_candidates(db, match, k, BM25_WEIGHTS, file_ids)
