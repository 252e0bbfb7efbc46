"""How much of a question BM25's best hit holds: whether keywords understood the question at all.

A question that reuses a note's words (most questions) finds that note's chunk holding most of
its terms. One that says the same thing in other words (a "conceptual" question: "the place
where my tags are counted" for the tag pane) finds only its common words matched, in whichever
chunk has most of them: BM25's ranking of it is noise that fusion should not trust alone.

Each term counts by its IDF over the chunks, so matching "노트" (in every chunk) adds little and
matching the note's rare word adds much. Read only for a non-English question over notes in its
own language with multilingual vectors (search/language_routing.py, ``meaning_weight``): a few
keyword lookups per term, on either store.
"""

from __future__ import annotations

import math

from vaultctx.index.db import IndexDatabase
from vaultctx.index.hangul import index_has_hangul
from vaultctx.index.search_queries import term_spread
from vaultctx.search.fts_query import build_fts_query
from vaultctx.text.lexical import FTS_ANALYZER_META


def keyword_coverage(db: IndexDatabase, query: str, best_chunk: int | None) -> float | None:
    """The share (0–1) of ``query``'s terms, IDF-weighted, that chunk ``best_chunk`` holds: 0
    when BM25 found nothing; None when the question has no terms."""
    match = build_fts_query(query, db.meta(FTS_ANALYZER_META), index_korean=index_has_hangul(db))
    if match is None:
        return None
    if best_chunk is None:
        return 0.0
    chunks, spread = term_spread(db, match.split(" OR "), best_chunk)
    weighed = [(math.log((chunks + 1) / (holding + 0.5)), held) for holding, held in spread]
    total = sum(weight for weight, _ in weighed)
    return sum(weight for weight, held in weighed if held) / total if total > 0 else 1.0
