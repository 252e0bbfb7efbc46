"""Which rankers can read a question: routing by the question's language against the notes'.

Each ranker reads some languages only. BM25 matches words, so it finds nothing but noise when the
vault holds no note in the question's language (an English question over Korean notes returns
the notes that happen to quote English words, and fusion lets that noise outrank the one list
that understood the question). The bundled vector models read English only. The multilingual
vectors read every language. So, for a vault with multilingual vectors:

- BM25 keeps its full weight when some notes are in the question's language, and
  ``FOREIGN_KEYWORD_WEIGHT`` (0: left out) otherwise;
- the English vectors rank an English question over a vault with English notes, nothing else;
- the multilingual vectors rank every question not in English, and English questions too when
  the vault holds notes in another language (only they can reach those notes). When notes in the
  question's own language exist, the other rankers read those, and the multilingual list adds
  only the chunks in other languages, scored on the scale of all its hits: the question's own
  language keeps exactly the order it had (an English question's English notes, a Korean
  question's Korean notes), and a note in another language ranks high only when, in the
  multilingual model's eyes, it beats them (``MULTILINGUAL_SAME_LANGUAGE`` says why). Where no
  other ranker reads the question's language (a vector-only search, an index without its
  keyword table), the retriever skips that cut: the multilingual list ranks every chunk.

A question BM25 plainly misunderstood is the exception: one that says in other words what a note
in its own language says (a "conceptual" question) shares few words with it, and BM25's best hit
then holds little of the question. ``meaning_weight`` gives the multilingual list that question's
own language back, weighted by how little BM25 matched; the retriever measures the match
(search/keyword_coverage.py). Non-English questions only: English ones have the English vectors.

An English question over an English vault routes exactly as it did before multilingual search
existed: same lists, same weights, same results.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultctx.search.ranking_constants import (
    ENGLISH_PRESENT_SHARE,
    FOREIGN_KEYWORD_WEIGHT,
    KEYWORD_COVERAGE_TRUSTED,
    MEANING_WHEN_KEYWORDS_MISS,
    MIN_LANGUAGE_SHARE,
    MULTILINGUAL_SAME_LANGUAGE,
)
from vaultctx.text.language import ENGLISH


@dataclass(frozen=True)
class Route:
    keyword_scale: float  # multiplies BM25's fusion weight
    english_vectors: bool
    multilingual: bool
    # The multilingual list adds only the chunks the other rankers cannot read (see below).
    multilingual_foreign_only: bool = False


def route_question(question: str, languages: dict[str, int]) -> Route:
    """The rankers for a question in language ``question`` over chunks counted by language."""
    total = sum(languages.values())
    share = languages.get(question, 0) / total if total else 1.0
    readable = share >= (ENGLISH_PRESENT_SHARE if question == ENGLISH else MIN_LANGUAGE_SHARE)
    others = total > 0 and 1.0 - share >= MIN_LANGUAGE_SHARE
    return Route(
        keyword_scale=1.0 if readable else FOREIGN_KEYWORD_WEIGHT,
        english_vectors=question == ENGLISH and readable,
        multilingual=question != ENGLISH or others,
        multilingual_foreign_only=readable and not MULTILINGUAL_SAME_LANGUAGE,
    )


def meaning_weight(coverage: float) -> float:
    """The multilingual list's weight, relative to BM25's, over chunks in the question's own
    language, when BM25's best hit holds ``coverage`` (0–1, IDF-weighted) of the question's
    terms: 0 (foreign chunks only, as routed) from ``KEYWORD_COVERAGE_TRUSTED`` up, rising as
    coverage falls."""
    missed = 1.0 - coverage / KEYWORD_COVERAGE_TRUSTED
    return MEANING_WHEN_KEYWORDS_MISS * missed if missed > 0 else 0.0
