"""A read-only retriever for one index, with the vector sources its embedding engines allow.

A vault has two engines (``engine``, ``quality_engine`` in vaultctx.toml); the index holds the
vectors of whichever engines built it. A source is added only when the stored model hash is the
engine's own, so vectors of another model never answer a query. Engines load on first use, as
start-up is most of a one-shot search: a keyword search loads none (unless the index has no
keyword table), and the static engine waits until pass 2 leaves chunks without transformer
vectors (``Retriever.vector_sources``). The weights and cut-offs are ``ranking_constants``'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultctx.db_location import IndexLocation
from vaultctx.embed.base import embed_query
from vaultctx.errors import VaultctxError
from vaultctx.search.ranking_constants import (
    MULTILINGUAL_VECTOR_WEIGHT,
    MULTILINGUAL_WEAK_BELOW,
    QUALITY_VECTOR_WEIGHT,
    QUALITY_WEAK_BELOW,
    STATIC_VECTOR_WEIGHT,
    STATIC_WEAK_BELOW,
)

if TYPE_CHECKING:
    from vaultctx.embed.base import Embedder
    from vaultctx.index.db import IndexDatabase
    from vaultctx.search.retriever import Retriever, VectorSource


class IndexRetriever:
    """Opens the index once and keeps one ``Retriever`` so models stay warm between queries.

    ``static`` and ``quality`` load the vault's engines (``quality`` returns None when pass 2 is
    switched off or its runtime is missing); each is asked at most once per opened retriever.
    """

    def __init__(
        self,
        db_path: IndexLocation,
        *,
        static: Callable[[], Embedder],
        quality: Callable[[], Embedder | None],
        multilingual: Callable[[], Embedder | None] = lambda: None,
    ) -> None:
        self.db_path = db_path
        self._static = static
        self._quality = quality
        self._multilingual = multilingual
        self._reader: IndexDatabase | None = None
        self._retriever: Retriever | None = None
        self._checked: set[str] = set()

    def get(self, *, vectors: bool = True) -> Retriever:
        """The retriever, opened on first use; with ``vectors`` (or an index without keywords)
        its vector sources are added."""
        if self._retriever is None:
            from vaultctx.index.db import open_index
            from vaultctx.search.retriever import Retriever

            self._reader = open_index(self.db_path, readonly=True)
            self._retriever = Retriever(self._reader, None)
            self._checked = set()
        if vectors or not self._retriever.has_fts:
            self._add_vector_sources(self._retriever)
        return self._retriever

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
        self._reader = self._retriever = None

    def _add_vector_sources(self, retriever: Retriever) -> None:
        """Each engine once per retriever: used only if the index's vectors are its own."""
        if not retriever.db.capabilities.vectors:
            return
        if "multilingual" not in self._checked:
            self._checked.add("multilingual")
            retriever.multilingual = self._multilingual_source(retriever)
        if "quality" not in self._checked:
            self._checked.add("quality")
            if (quality := self._quality_source(retriever)) is not None:
                retriever.quality = quality
        if "static" in self._checked:
            return
        if retriever.quality is None or not retriever.quality_complete():
            self._checked.add("static")
            if (static := self._static_source(retriever.db)) is not None:
                retriever.static = static

    def _quality_source(self, retriever: Retriever) -> VectorSource | None:
        from vaultctx.index.schema import META_QUALITY_MODEL_HASH, QUALITY_TABLE

        reader = retriever.db
        engine = self._quality() if reader.has_table(QUALITY_TABLE) else None
        if engine is None or not _stored_hash_matches(
            reader.meta(META_QUALITY_MODEL_HASH), engine, retriever.source_notices
        ):
            return None
        return _source(QUALITY_TABLE, engine, QUALITY_VECTOR_WEIGHT, QUALITY_WEAK_BELOW)

    def _multilingual_source(self, retriever: Retriever) -> VectorSource | None:
        """Only an index with multilingual vectors loads the engine: an English vault's
        searches never do (index/multilingual_pass.py)."""
        from vaultctx.index.schema import META_MULTI_MODEL_HASH, MULTI_TABLE

        reader = retriever.db
        if not reader.has_table(MULTI_TABLE):
            return None
        engine = self._multilingual()
        if engine is None or not _stored_hash_matches(
            reader.meta(META_MULTI_MODEL_HASH), engine, retriever.source_notices
        ):
            return None
        return _source(MULTI_TABLE, engine, MULTILINGUAL_VECTOR_WEIGHT, MULTILINGUAL_WEAK_BELOW)

    def _static_source(self, reader: IndexDatabase) -> VectorSource | None:
        from vaultctx.index.schema import META_MODEL_HASH, VECTOR_TABLE

        if not reader.has_table(VECTOR_TABLE):
            return None
        engine = self._static()
        if reader.meta(META_MODEL_HASH) != engine.model_hash:
            return None
        return _source(VECTOR_TABLE, engine, STATIC_VECTOR_WEIGHT, STATIC_WEAK_BELOW)


def _source(table: str, engine: Embedder, weight: float, weak_below: float) -> VectorSource:
    from vaultctx.search.retriever import VectorSource

    return VectorSource(
        table, lambda q: embed_query(engine, q), weight=weight, weak_below=weak_below
    )


def _stored_hash_matches(stored: str | None, engine: Embedder, notices: list[str]) -> bool:
    """Whether the index's vectors are ``engine``'s. A remote engine learns its hash from the
    provider; when that fails the search goes on without its vectors, and says so."""
    if stored is None:
        return False
    try:
        return stored == engine.model_hash
    except VaultctxError as exc:
        notices.append(
            f"the embedding engine {engine.name} is unavailable ({exc.message}): "
            "searching without its vectors"
        )
        return False
