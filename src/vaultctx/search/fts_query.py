"""Turn any text a user types into a valid FTS5 MATCH expression.

FTS5 syntax errors must never reach the user, so we never pass their text through: we keep only
the characters the ``unicode61`` tokenizer would index, and quote every whitespace-separated word as
a phrase of its parts. ``SQLITE_LOCKED`` becomes ``"sqlite locked"`` and ``_rrf_fuse`` becomes
``"rrf fuse"``, which match the identifier exactly where it occurs (adjacent tokens) while still
being plain words to BM25. Words are OR-ed: questions in natural language must not require every
word, and BM25 ranks notes with more of them higher. A trailing ``*`` keeps its prefix meaning.

Korean, Chinese and Japanese words are analysed exactly as the index analysed them
(``text.lexical``: Kiwi morphemes or character bigrams), and each resulting piece is its own
OR-ed term: ``볼트를`` asks for ``볼트``. Requiring a word's pieces as one phrase measured far worse
(nDCG@10 0.811 against 0.916 for bigrams on ko-autorag): the point of the pieces is that a
differently inflected form still shares most of them.
"""

from __future__ import annotations

import re

from vaultctx.text.lexical import analyse_query

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


# Korean question words (what, which, how, where, when, who, how much; why, how many): like
# "what" and "how" above they rank nothing, and they carry their endings (무엇인가요, 어떻게, 뭐야),
# so whole words are matched. Dropping them measured +0.007 (Kiwi) and +0.010 (bigrams) on
# ko-autorag.
_KOREAN_QUESTION_WORD = re.compile(
    r"(?:무엇|뭐|뭔|뭘|어떤|어떻|어느|어디|언제|누구|얼마)[가-힣]*|왜|몇"
)


def _is_question_word(word: str) -> bool:
    parts = _PARTS.findall(word)
    return len(parts) == 1 and _KOREAN_QUESTION_WORD.fullmatch(parts[0]) is not None


def _phrase(word: str) -> str | None:
    parts = _PARTS.findall(word.lower())
    if not parts:
        return None
    prefix = word.endswith("*") and len(parts) == 1
    quoted = '"' + " ".join(parts) + '"'
    return f"{quoted}*" if prefix else quoted


def build_fts_query(
    text: str, index_analyzer: str | None = None, *, index_korean: bool = True
) -> str | None:
    """An FTS5 expression for ``text``, or None when it holds nothing searchable.

    ``index_analyzer`` is the ``analyzer_id()`` the index was built with (None: this process's);
    ``index_korean`` False: the index holds no Hangul (see ``text.lexical.analyse_query``).
    """
    words = text.split()
    asked = [word for word in words if not _is_question_word(word)] or words
    phrases: list[str] = []
    meaningful: list[str] = []
    for word in analyse_query(" ".join(asked), index_analyzer, index_korean=index_korean).split():
        phrase = _phrase(word)
        if phrase is None or phrase in phrases:
            continue
        phrases.append(phrase)
        if phrase.strip('"*') not in STOPWORDS:
            meaningful.append(phrase)
    chosen = meaningful or phrases
    return " OR ".join(chosen) if chosen else None


def build_title_query(
    text: str, index_analyzer: str | None = None, *, index_korean: bool = True
) -> str | None:
    """An FTS5 expression for the chunks whose context line starts with ``text`` as a phrase, or
    None. The context line starts with the note's title (``vault.chunker.heading_context``), so
    these are the chunks of the notes whose title starts with ``text``: an indexed lookup, where
    comparing every title would read the whole ``files`` table for each query.
    """
    parts = _PARTS.findall(analyse_query(text, index_analyzer, index_korean=index_korean).lower())
    return f'heading_context : ^"{" ".join(parts)}"' if parts else None


def title_key(text: str) -> str:
    """A title or a query as they are compared: its words, case-folded, single-spaced."""
    return " ".join(_PARTS.findall(text.casefold()))
