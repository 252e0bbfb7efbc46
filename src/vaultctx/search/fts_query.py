"""Turn any text a user types into a valid FTS5 MATCH expression (SPEC §6).

FTS5 syntax errors must never reach the user, so we never pass their text through: we keep only
the characters the ``unicode61`` tokenizer would index, and quote every whitespace-separated word as
a phrase of its parts. ``SQLITE_LOCKED`` becomes ``"sqlite locked"`` and ``_rrf_fuse`` becomes
``"rrf fuse"``, which match the identifier exactly where it occurs (adjacent tokens) while still
being plain words to BM25. Words are OR-ed: questions in natural language must not require every
word, and BM25 ranks notes with more of them higher. A trailing ``*`` keeps its prefix meaning.
"""

from __future__ import annotations

import re

# Letters and digits as unicode61 sees them; "_" separates, as in the tokenizer.
_PARTS = re.compile(r"[^\W_]+")

# Words too common to rank anything; dropped unless the query has nothing else.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def _phrase(word: str) -> str | None:
    parts = _PARTS.findall(word.lower())
    if not parts:
        return None
    prefix = word.endswith("*") and len(parts) == 1
    quoted = '"' + " ".join(parts) + '"'
    return f"{quoted}*" if prefix else quoted


def build_fts_query(text: str) -> str | None:
    """An FTS5 expression for ``text``, or None when it holds nothing searchable."""
    phrases: list[str] = []
    meaningful: list[str] = []
    for word in text.split():
        phrase = _phrase(word)
        if phrase is None or phrase in phrases:
            continue
        phrases.append(phrase)
        if phrase.strip('"*') not in STOPWORDS:
            meaningful.append(phrase)
    chosen = meaningful or phrases
    return " OR ".join(chosen) if chosen else None
