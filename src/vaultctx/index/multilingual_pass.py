"""The multilingual pass: vectors any language can query, for the vaults that need them.

The bundled models read English only. A vault with notes in another language gets a third vector
table from the multilingual engine (``multilingual_engine`` in vaultctx.toml), filled after pass 2
by the same resumable loop (quality_pass.py). Which chunks, by ``multilingual_chunks``:

- ``auto`` (default): none in an English vault, so English indexing pays nothing, not even the
  engine's load; the chunks in other languages when they are a sliver of the vault (a large
  English vault with a few Korean notes must not pay a multilingual pass over every English
  chunk: the engine is several times slower than the English ones); every chunk once other
  languages make up ``MIXED_VAULT_SHARE`` of it, so a question in either language reaches the
  notes of both;
- ``all``: every chunk, for an English vault whose owner asks in other languages;
- ``off``: none.

It also decides pass 2's scope (``choose_quality_pass``). Search reads the English transformer's
vectors only for an English question over a vault where English makes up ``ENGLISH_READ_SHARE``
of the chunks (search/language_routing.py). Below that share, on a vault with multilingual
vectors, no route reads them for the chunks in other languages, and embedding those with the
English transformer (the slower of the two on Korean text) would only delay "meaning search
ready": pass 2 then embeds the English chunks and the chunks still without a multilingual vector,
and runs after the multilingual pass so that set is known. The scope is decided again on every
run: once the vault's notes turn English, the chunks it skipped are embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from vaultctx.embed.base import Embedder
from vaultctx.index.db import IndexDatabase
from vaultctx.index.languages import chunk_languages
from vaultctx.index.quality_pass import (
    ENGLISH_OR_UNCOVERED,
    QUALITY_SCOPE_META,
    QualityPassReport,
    VectorPass,
    multilingual_pass,
    quality_coverage,
    quality_pass_for,
    run_quality_pass,
)
from vaultctx.text.language import ENGLISH

MultilingualChunks = Literal["auto", "all", "off"]
# From this share of chunks in other languages on, a vault is bilingual and every chunk gets a
# multilingual vector; below it only the chunks not in English do. The same share from which
# search counts English as present in a vault (ENGLISH_PRESENT_SHARE): the bundled English example
# vault, 7 % Korean, pays for its 6 Korean chunks only, not all 88.
MIXED_VAULT_SHARE = 0.15
# Search's ENGLISH_PRESENT_SHARE (search/ranking_constants.py; a test holds them equal): below
# it, no question is routed to the English vectors of an index with multilingual vectors.
ENGLISH_READ_SHARE = 0.15
MULTILINGUAL_CHUNKS: tuple[MultilingualChunks, ...] = ("auto", "all", "off")


def multilingual_target(db: IndexDatabase, chunks: str) -> VectorPass | None:
    """The pass for this index under the ``multilingual_chunks`` setting; None: no chunk needs
    multilingual vectors."""
    if chunks == "all":
        return multilingual_pass("TRUE")
    counts = chunk_languages(db)
    foreign = sum(count for lang, count in counts.items() if lang != ENGLISH)
    if chunks != "auto" or not foreign:
        return None
    if foreign >= MIXED_VAULT_SHARE * sum(counts.values()):
        return multilingual_pass("TRUE")
    return multilingual_pass(f"lang != '{ENGLISH}'")


def run_multilingual_pass(
    db: IndexDatabase,
    engine: Callable[[], Embedder | None],
    target: VectorPass,
    **options: object,
) -> QualityPassReport | None:
    """Embed the chunks of ``target`` that lack a multilingual vector; the engine is loaded only
    when there are any. None when the engine is unavailable (not installed, switched off)."""
    done, total = quality_coverage(db, target)
    if done == total:
        return QualityPassReport()
    embedder = engine()
    if embedder is None:
        return None
    return run_quality_pass(db, embedder, target=target, **options)  # type: ignore[arg-type]


def choose_quality_pass(
    db: IndexDatabase, chunks: str, engine: Callable[[], Embedder | None] | None
) -> VectorPass:
    """Pass 2 for this run, recorded for status and search (``stored_quality_pass``): every
    chunk, unless the multilingual pass covers a vault whose English chunks are too few for
    search to read the English vectors. ``engine`` is asked (not loaded: its session starts on
    first use) only for such a vault; without one every chunk is pass 2's again."""
    counts = chunk_languages(db)
    few_english = counts.get(ENGLISH, 0) < ENGLISH_READ_SHARE * sum(counts.values())
    covered = few_english and multilingual_target(db, chunks) is not None
    if covered and (engine is None or engine() is None):
        covered = False
    scope = ENGLISH_OR_UNCOVERED if covered else "all"
    if db.meta(QUALITY_SCOPE_META) != scope:
        with db.transaction():
            db.set_meta(QUALITY_SCOPE_META, scope)
    return quality_pass_for(scope)
