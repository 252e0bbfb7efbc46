"""What BM25 sees of a text: the index and the query side must analyse text the same way.

FTS5's unicode61 tokenizer splits on spaces and punctuation only, which hides Korean words behind
their particles and leaves Chinese and Japanese sentences as single tokens. The indexer stores
``fts_document(text)`` in the contentless FTS table instead of the raw text, and records
``analyzer_id()`` so a change of analysis rebuilds the FTS table.

- Hangul: Kiwi morphemes when ``kiwipiepy`` is installed (``vaultctx[ko]``), else character
  bigrams. ``VAULTCTX_KOREAN_ANALYZER`` = ``kiwi`` | ``ngram`` | ``auto`` (default) overrides.
- Kana and CJK ideographs: character bigrams (Kiwi knows Korean only).
- Everything else passes through unchanged; porter and unicode61 keep handling it.

A query must be analysed the way its index was, which may differ from what this process would
index with (Kiwi installed or removed since): ``query_analysis`` decides from the stored id.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal

from vaultctx.text import cjk, korean
from vaultctx.text.korean import KoreanAnalyzerError

ANALYZER_ENV = "VAULTCTX_KOREAN_ANALYZER"
# Model meta key under which the indexer records ``analyzer_id()``.
FTS_ANALYZER_META = "fts_analyzer"
# Bump when the analysis changes in a way that must re-analyse existing indexes. Kiwi's has its
# own: v2 keeps compound nouns whole beside their parts (text/korean.py); bigram indexes keep v1.
_SCHEME = "v1"
_KIWI_SCHEME = "v2"
_KIWI_PREFIX = "kiwi-"
# Every analysis whose id holds this analyses kana and ideographs the same way (cjk.bigrams).
_KANA_HAN_SUFFIX = "+cjk-bigram/"
_BIGRAM_PREFIX = "hangul-bigram"

KoreanAnalysis = Literal["kiwi", "ngram"]
# "prefix": the index holds Kiwi morphemes but Kiwi is missing here, so each Korean query word
# also stands for its leading characters (the stem is usually a prefix: 볼트를 → 볼트).
# "none": an index whose FTS rows are raw text.
Analysis = Literal["kiwi", "ngram", "prefix", "none"]


def korean_analysis() -> KoreanAnalysis:
    """How this process analyses Hangul when it indexes."""
    choice = os.environ.get(ANALYZER_ENV, "").strip().lower() or "auto"
    if choice == "ngram":
        return "ngram"
    if choice not in ("auto", "kiwi"):
        raise KoreanAnalyzerError(
            f"{ANALYZER_ENV}={choice!r} is not an analyzer", "set it to kiwi, ngram or auto"
        )
    if korean.kiwi_installed():
        return "kiwi"
    if choice == "kiwi":
        raise KoreanAnalyzerError(
            f"{ANALYZER_ENV}=kiwi but kiwipiepy is not installed",
            f"pip install 'vaultctx[ko]', or set {ANALYZER_ENV}=ngram",
        )
    return "ngram"


def analyzer_id() -> str:
    """Names the analysis in use; stored in the index, a different value rebuilds the FTS table.

    Kiwi's version is part of it: another version may split words differently.
    """
    if korean_analysis() == "kiwi":
        return f"{_KIWI_PREFIX}{korean.kiwi_version()}{_KANA_HAN_SUFFIX}{_KIWI_SCHEME}"
    return f"{_BIGRAM_PREFIX}{_KANA_HAN_SUFFIX}{_SCHEME}"


def analyses_agree_without_hangul(stored: str, current: str) -> bool:
    """Whether an index analysed as ``stored`` holds what ``current`` would write for any text
    without Hangul: both analyse kana and ideographs by bigrams and copy the rest, so they differ
    in Korean only (Kiwi's version or scheme, Kiwi or bigrams). An index known to hold no Hangul
    then needs no re-analysis, which an English vault would otherwise pay once per such change."""
    return all(_KANA_HAN_SUFFIX in analysis for analysis in (stored, current))


def fts_document(text: str) -> str:
    """The text FTS5 indexes for ``text``."""
    if not _needs_analysis(text):
        return text
    return _analysed(text, korean_analysis(), cjk.bigrams)


def analyse_query(query: str, index_analyzer: str | None, *, index_korean: bool = True) -> str:
    """``query`` analysed to match an index built with ``index_analyzer`` (None: this process's).

    ``index_korean`` False says the index holds no Hangul (``index.hangul``): its Korean words then
    match nothing whatever the analysis, so the cheap one is used and Kiwi is never loaded.
    """
    if not _needs_analysis(query):
        return query
    analysis = query_analysis(index_analyzer)
    if analysis == "kiwi" and not index_korean:
        analysis = "ngram"
    if analysis == "none":
        return query
    return _analysed(
        query, analysis, _prefixes if analysis == "prefix" else cjk.korean_query_bigrams
    )


def _analysed(text: str, analysis: Analysis, split_hangul: Callable[[str], list[str]]) -> str:
    """Hangul by Kiwi, or else by ``split_hangul``; then kana and ideographs by bigrams."""
    if cjk.HANGUL_RUN.search(text):
        if analysis == "kiwi":
            text = korean.content_morphemes(text)
        else:
            text = cjk.bigram_runs(text, cjk.HANGUL_RUN, split_hangul)
    return cjk.bigram_runs(text, cjk.HAN_KANA_RUN)


def query_analysis(index_analyzer: str | None) -> Analysis:
    """How to analyse a query for an index built with ``index_analyzer`` (None: this process's)."""
    if index_analyzer is None:
        return korean_analysis()
    if index_analyzer.startswith(_KIWI_PREFIX):
        return "kiwi" if korean.kiwi_installed() else "prefix"
    if index_analyzer.startswith(_BIGRAM_PREFIX):
        return "ngram"
    return "none"


def query_notice(index_analyzer: str | None, query: str) -> str | None:
    """What to tell the user when their Korean query meets an index analysed differently."""
    if index_analyzer is None or not cjk.HANGUL_RUN.search(query):
        return None
    analysis = query_analysis(index_analyzer)
    if analysis == "prefix":
        return (
            "this index analysed Korean with kiwipiepy, which is not installed here: Korean "
            "keywords match approximately; pip install 'vaultctx[ko]', or run `vaultctx index`"
        )
    if analysis == "none":
        return "this index predates Korean-aware keywords: run `vaultctx index` to rebuild them"
    current = analyzer_id()
    if index_analyzer != current:
        return f"Korean keywords were analysed as {index_analyzer}: `vaultctx index` updates them"
    return None


def _needs_analysis(text: str) -> bool:
    # isascii() is a flag lookup for most strings: 93 % of PowerShell chunks skip both scans.
    return not text.isascii() and bool(cjk.HANGUL_RUN.search(text) or cjk.HAN_KANA_RUN.search(text))


def _prefixes(word: str) -> list[str]:
    """The word and its leading parts down to two characters (one for a one-character word)."""
    return [word[:end] for end in range(len(word), min(2, len(word)) - 1, -1)]
