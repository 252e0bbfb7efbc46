"""Keyword ranking with FTS5's BM25 and the column weights of SPEC §6."""

from __future__ import annotations

from vaultctx.index.db import IndexDatabase
from vaultctx.search.fts_query import build_fts_query

BM25_WEIGHTS = (1.0, 0.5, 0.3)  # chunk_text, section, heading_context
BM25_TOP_K = 30


def bm25_search(db: IndexDatabase, query: str, k: int = BM25_TOP_K) -> list[tuple[int, float]]:
    """(chunk id, bm25 score) best first; FTS5's bm25() is negative, lower is better."""
    match = build_fts_query(query)
    if match is None:
        return []
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    rows = db.execute(
        f"SELECT rowid, bm25(chunks_fts, {weights}) AS score FROM chunks_fts "
        "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?",
        (match, k),
    )
    return [(int(rowid), float(score)) for rowid, score in rows]
