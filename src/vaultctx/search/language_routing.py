"""Which rankers can read a question: routing by the question's language against the notes'.

Each ranker reads some languages only. BM25 matches words, so it finds nothing but noise when the
vault holds no note in the question's language (an English question over Korean notes returns
the notes that happen to quote English words, and fusion lets that noise outrank the one list
that understood the question). The bundled vector models read English only. The multilingual
vectors read every language. So, for a vault with multilingual vectors:

- BM25 keeps its full weight when some notes are in the question's language, and a small one
  (``FOREIGN_KEYWORD_WEIGHT``) otherwise: a Korean question over English notes often names the
  English term itself (``git``), which is worth a nudge but must not drown the meaning;
- the English vectors rank an English question over a vault with English notes, nothing else;
- the multilingual vectors rank every question not in English, and English questions too when
  the vault holds notes in another language (only they can reach those notes). For an English
  question they add only the non-English chunks, scored on the scale of all their hits: the
  English chunks keep exactly the order BM25 and the English models give them, and a Korean
  note ranks high only when, in the multilingual model's eyes, it beats the English ones.

An English question over an English vault routes exactly as it did before multilingual search
existed: same lists, same weights, same results.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultctx.search.ranking_constants import (
    ENGLISH_PRESENT_SHARE,
    FOREIGN_KEYWORD_WEIGHT,
    MIN_LANGUAGE_SHARE,
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
    english = question == ENGLISH and readable
    return Route(
        keyword_scale=1.0 if readable else FOREIGN_KEYWORD_WEIGHT,
        english_vectors=english,
        multilingual=question != ENGLISH or others,
        multilingual_foreign_only=english,
    )
