"""What BM25 sees of a text: the index and the query side must analyse text the same way.

FTS5's unicode61 tokenizer splits on spaces and punctuation only, which hides Korean words behind
their particles. The indexer stores ``fts_document(text)`` in the contentless FTS table instead of
the raw text, and records ``analyzer_id()`` so a change of analysis rebuilds the FTS table.
"""

from __future__ import annotations


def analyzer_id() -> str:
    """Names the analysis in use; stored in the index, a different value rebuilds the FTS table."""
    return "unicode61"


def fts_document(text: str) -> str:
    """The text FTS5 indexes for ``text``."""
    return text
