"""Which languages a vault is written in and which engines read them, as ``status`` says it.

Plain words for a plain question, "can meaning search read my notes?": the languages' shares of
the chunks, then either "meaning search covers …" with the engines that do, or, per language no
engine reads, "keyword search only" and what to do about it.
"""

from __future__ import annotations

from dataclasses import dataclass

from vaultctx.index.db import IndexDatabase
from vaultctx.index.languages import chunk_languages, count_chunk_languages
from vaultctx.index.schema import META_MULTI_MODEL_NAME, MULTI_TABLE
from vaultctx.text.language import ENGLISH, language_name

ENABLE_MULTILINGUAL = (
    "install a multilingual engine and run `vaultctx index` (multilingual_engine in vaultctx.toml)"
)


@dataclass(frozen=True)
class LanguageCoverage:
    shares: dict[str, float]  # language code → share of chunks, largest first
    sentence: str  # what status prints
    uncovered: list[str]  # languages only keywords can search


def language_coverage(db: IndexDatabase, english_engines: list[str]) -> LanguageCoverage | None:
    """None for an index without chunks. ``english_engines``: the bundled models whose vectors
    the index holds (they read English only)."""
    counts = chunk_languages(db) or count_chunk_languages(db)
    total = sum(counts.values())
    if not total:
        return None
    shares = {lang: count / total for lang, count in sorted(counts.items(), key=lambda kv: -kv[1])}
    multi = _multilingual_engine(db, total - counts.get(ENGLISH, 0))
    covered = [lang for lang in shares if (lang == ENGLISH and english_engines) or multi]
    uncovered = [lang for lang in shares if lang not in covered]
    listed = ", ".join(
        f"{language_name(lang)} {share:.0%}".replace("%", " %") for lang, share in shares.items()
    )
    engines = ", ".join(
        [*(english_engines if ENGLISH in covered else []), *([multi] if multi else [])]
    )
    if not uncovered:
        which = "it" if len(shares) == 1 else "both" if len(shares) == 2 else "all"
        return LanguageCoverage(shares, f"{listed} — meaning search covers {which} ({engines})", [])
    missing = ", ".join(language_name(lang) for lang in uncovered)
    reason = "the vector models are English-only" if not multi else "no vectors yet"
    sentence = (
        f"{listed} — {missing}: keyword (BM25) search only, as {reason}; {ENABLE_MULTILINGUAL}"
    )
    if covered:
        sentence += f"; meaning search covers {language_name(covered[0])} ({engines})"
    return LanguageCoverage(shares, sentence, uncovered)


def _multilingual_engine(db: IndexDatabase, foreign_chunks: int) -> str | None:
    """The multilingual engine's name when its vectors cover every non-English chunk."""
    if not (db.capabilities.vectors and db.has_table(MULTI_TABLE)):
        return None
    embedded = int(
        db.scalar(
            "SELECT count(*) FROM chunks WHERE multi_embedded_at IS NOT NULL AND lang != 'en'"
        )
    )
    if embedded < foreign_chunks:
        return None
    return db.meta(META_MULTI_MODEL_NAME)
