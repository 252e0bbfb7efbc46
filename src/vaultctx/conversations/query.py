"""A search query as typed, turned into something FTS5 can never reject.

Every word becomes a quoted FTS5 string (``"`` doubled inside), so what a person types (``a OR
"b``, ``-x``, ``NEAR(``, ``col:term``) is searched for as text, never parsed as FTS5 syntax; the
words must all occur in one message. Words of three or more characters also match as prefixes
(``lock`` finds ``locked``): the word tables do not stem, and a chat is searched for what was
said, in whatever form.

Word search (``unicode61``) splits Korean, Japanese and Chinese only at spaces, so ``볼트`` would
not find ``볼트를`` (the noun plus a particle). A query holding any of those scripts is therefore
matched as substrings instead: words of three or more characters through the trigram table,
shorter ones (most Korean nouns are two syllables) by ``LIKE``. The snippet for such a match is
cut here, as FTS5's trigram snippets count trigrams, not characters.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from vaultctx.errors import VaultctxError

MARK_START = "**"
MARK_END = "**"
_TRIGRAM = 3
_SNIPPET_REACH = 60  # characters shown before a match, and up to twice that after it


class EmptyQueryError(VaultctxError):
    """The query holds nothing to search for."""


@dataclass(frozen=True)
class SearchPlan:
    """How one query runs: ``words``, an FTS5 query for the word tables; or substrings:
    ``trigrams`` (an FTS5 query for the trigram table, the words of 3+ characters) and ``likes``
    (``LIKE`` patterns for the shorter words), with ``title_likes`` for every word, as titles
    have no trigram table (they are few)."""

    terms: tuple[str, ...]
    words: str | None
    trigrams: str | None
    likes: tuple[str, ...]
    title_likes: tuple[str, ...]


def plan_search(query: str) -> SearchPlan:
    """The plan for ``query``; ``EmptyQueryError`` when it has no letters or digits."""
    terms = tuple(_clean(word) for word in query.split())
    terms = tuple(term for term in terms if any(char.isalnum() for char in term))
    if not terms:
        raise EmptyQueryError(
            f"nothing to search for in {query!r}",
            "give at least one word, e.g. `vaultctx conversations search wal`",
        )
    if not any(needs_substrings(term) for term in terms):
        words = " ".join(_quoted(t) + (" *" if len(t) >= _TRIGRAM else "") for t in terms)
        return SearchPlan(terms, words, None, (), ())
    long_terms = [t for t in terms if len(t) >= _TRIGRAM]
    short_terms = tuple(_like_pattern(t) for t in terms if len(t) < _TRIGRAM)
    trigrams = " ".join(_quoted(t) for t in long_terms) or None
    return SearchPlan(terms, None, trigrams, short_terms, tuple(_like_pattern(t) for t in terms))


def needs_substrings(text: str) -> bool:
    """True when ``text`` holds Hangul, kana or CJK ideographs, which are written without spaces
    between words."""
    return any(_is_cjk(ord(char)) for char in text)


def _is_cjk(code: int) -> bool:
    return (
        0x1100 <= code <= 0x11FF  # Hangul Jamo
        or 0x2E80 <= code <= 0x9FFF  # CJK radicals, kana, compatibility jamo, ideographs
        or 0xA960 <= code <= 0xA97F  # Hangul Jamo Extended-A
        or 0xAC00 <= code <= 0xD7FF  # Hangul syllables, Jamo Extended-B
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0xFF00 <= code <= 0xFFEF  # half- and full-width forms
        or 0x20000 <= code <= 0x3FFFF  # ideographs beyond the BMP
    )


def _clean(word: str) -> str:
    """Text SQLite can take: a lone surrogate (from a terminal in the wrong encoding) becomes
    U+FFFD, NUL is dropped (SQLite would end the string there)."""
    return word.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _like_pattern(term: str) -> str:
    """``%term%`` for ``LIKE ... ESCAPE '\\'``, with the term's own ``%`` and ``_`` literal."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def substring_snippet(text: str, terms: tuple[str, ...]) -> str:
    """Up to ~180 characters of ``text`` around its first match, each match of any term marked;
    case and accents are ignored, as the trigram table ignores them."""
    folded, origin = _fold(text)
    spans: list[tuple[int, int]] = []
    for term in terms:
        needle, _ = _fold(term)
        if not needle:
            continue
        start = folded.find(needle)
        while start != -1:
            spans.append((origin[start], origin[start + len(needle) - 1] + 1))
            start = folded.find(needle, start + len(needle))
    if not spans:
        return _excerpt(text, 0, 2 * _SNIPPET_REACH)
    spans = _merged(sorted(spans))
    first = spans[0][0]
    begin = max(0, first - _SNIPPET_REACH)
    end = min(len(text), first + 2 * _SNIPPET_REACH)
    pieces: list[str] = ["…" if begin > 0 else ""]
    cursor = begin
    for start, stop in spans:
        if start < begin or stop > end:
            continue
        pieces += [text[cursor:start], MARK_START, text[start:stop], MARK_END]
        cursor = stop
    pieces += [text[cursor:end], "…" if end < len(text) else ""]
    return _one_line("".join(pieces))


def _fold(text: str) -> tuple[str, list[int]]:
    """``text`` without case or accents, and for each folded character the index of the
    character it came from."""
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        # Hangul syllables stay whole: decomposed, ``보`` would match inside ``볼``.
        base = char if _is_cjk(ord(char)) else _without_accents(char)
        for piece in base.casefold():
            folded.append(piece)
            origin.append(index)
    return "".join(folded), origin


def _without_accents(char: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, stop in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def _excerpt(text: str, begin: int, end: int) -> str:
    return _one_line(text[begin:end] + ("…" if end < len(text) else ""))


def _one_line(text: str) -> str:
    return " ".join(text.split())
