"""The search facade: BM25 + vectors fused, degraded gracefully, scrubbed and budgeted (SPEC §6).

Integrations call ``Retriever.search`` and never run SQL. Which rankers run follows what the index
can do: no sqlite-vec or no vectors → BM25 only; no FTS table → vectors only. Each degradation is
reported in ``SearchResponse.notices`` instead of failing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from vaultctx.index.db import IndexDatabase
from vaultctx.index.text_codec import unpack_text
from vaultctx.scrub import scrub_secrets
from vaultctx.scrub.fingerprint import SCRUBBER_META, scrubber_fingerprint
from vaultctx.search.bm25 import BM25_TOP_K, bm25_search
from vaultctx.search.budget import fit_to_budget
from vaultctx.search.fusion import fuse_rrf, fuse_scores
from vaultctx.search.graph import (
    DEFAULT_DEPTH,
    GRAPH_WEIGHT,
    KEYWORD_WEIGHT,
    GraphOrigin,
    LinkGraphCache,
    RelatedMoc,
    check_depth,
    chunk_notes,
    graph_ranking,
    related_mocs,
    reserve_keyword_slots,
)
from vaultctx.text.lexical import FTS_ANALYZER_META, query_notice

if TYPE_CHECKING:
    # numpy only on the vector path: the hook's keyword search must not pay for its import.
    import numpy as np
    import numpy.typing as npt

    from vaultctx.search.filters import SearchFilter
    from vaultctx.search.vector_memory import InMemoryVectors

# The vector query after which a retriever starts holding vectors in memory (vector_memory.py).
VECTORS_IN_MEMORY_AFTER = 3

Mode = Literal["hybrid", "bm25", "vector"]
Fusion = Literal["score", "rrf"]
FUSIONS: tuple[str, ...] = ("score", "rrf")
QueryEmbedder = Callable[[str], "npt.NDArray[np.float32]"]
MODES: tuple[str, ...] = ("hybrid", "bm25", "vector")

# Hangul, kana and CJK ideographs: the bundled vector models are English-only (see fusion policy).
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class SearchResult:
    file_path: str
    title: str
    section: str
    citation: str
    text: str
    score: float
    bm25_rank: int | None
    vec_rank: int | None
    chunk_id: int
    graph: GraphOrigin | None = None  # why a --graph search returned it (SPEC §7)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchResponse:
    query: str
    mode: str
    results: list[SearchResult]
    took_ms: float
    notices: list[str] = field(default_factory=list)
    related_mocs: list[RelatedMoc] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.results)

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [r.as_dict() for r in self.results],
            "count": self.count,
            "mode": self.mode,
            "took_ms": round(self.took_ms, 2),
            "notices": self.notices,
            "related_mocs": [asdict(moc) for moc in self.related_mocs],
        }


@dataclass(frozen=True)
class VectorSource:
    """One vector table and the function that embeds a query into its space."""

    table: str
    embed_query: QueryEmbedder
    weight: float


def citation_for(path: str, section: str) -> str:
    return f"{path}#{section}" if section else path


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


class Retriever:
    """Answers queries over one open index; cheap to call repeatedly (models stay loaded).

    Vectors while pass 2 is partial: the static vectors cover every chunk, the quality vectors only
    the chunks pass 2 has reached. Until every chunk has a quality vector, both lists are fused
    (so every chunk stays reachable and upgraded chunks rank by the better model); once coverage
    is complete only the quality vectors are queried. Coverage is read per query (one indexed
    lookup), so a pass 2 finishing in another process takes effect at once.
    """

    def __init__(
        self,
        db: IndexDatabase,
        static: VectorSource | None,
        quality: VectorSource | None = None,
    ) -> None:
        self.db = db
        self.static = static
        self.quality = quality
        self.has_fts = db.has_table("chunks_fts")
        self.links = LinkGraphCache(db)
        self.memory: InMemoryVectors | None = None
        self._vector_queries = 0
        # None keeps every query on sqlite-vec (benchmarks of the one-shot path).
        self.memory_after: int | None = VECTORS_IN_MEMORY_AFTER

    def _count_vector_query(self) -> None:
        """A process that keeps searching is long-lived (a script, a notebook, a server): from
        the third vector query on, vectors are ranked from RAM. One-shot processes never pay
        for loading the matrix."""
        self._vector_queries += 1
        after = self.memory_after
        if self.memory is None and after is not None and self._vector_queries >= after:
            self.hold_vectors_in_memory()

    def hold_vectors_in_memory(self, *, wait: bool = False) -> None:
        """For processes that answer many queries: rank vectors from RAM (see vector_memory)."""
        if self.memory is None:
            from vaultctx.search.vector_memory import InMemoryVectors

            self.memory = InMemoryVectors(self.db)
        self.memory.load([source.table for source in self.vector_sources()], wait=wait)

    def vector_sources(self) -> list[VectorSource]:
        if self.quality is None:
            return [self.static] if self.static else []
        if self.static is None or self.quality_complete():
            return [self.quality]
        return [self.static, self.quality]

    def _scrubbed_at_index(self) -> bool:
        """True when every stored text went through this very scrubber (scrub/fingerprint.py)."""
        return self.db.meta(SCRUBBER_META) == scrubber_fingerprint()

    def quality_complete(self) -> bool:
        return not self.db.scalar(
            "SELECT EXISTS(SELECT 1 FROM chunks WHERE quality_embedded_at IS NULL)"
        )

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        max_tokens: int = 4000,
        mode: Mode = "hybrid",
        bm25_weight: float = 1.0,
        vec_weight: float | None = None,
        notes: bool = False,
        fusion: Fusion = "score",
        graph: bool = False,
        depth: int = DEFAULT_DEPTH,
        filters: SearchFilter | None = None,
    ) -> SearchResponse:
        """``graph`` ranks as SPEC §7 does (weights and ``fusion`` then come from §7).

        ``filters`` (SPEC §8) restrict both rankers before they rank, so ``limit`` results come
        back whenever enough notes match; graph neighbours outside them are dropped.
        """
        started = time.perf_counter()
        if graph:
            check_depth(depth)
        if fusion not in FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}")
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        notices: list[str] = []
        if mode == "bm25" and not self.has_fts:
            notices.append("keyword index unavailable: falling back to vector search")
            mode = "vector"
        sources = self.vector_sources() if mode in ("hybrid", "vector") else []
        if mode == "vector" and not sources and self.has_fts:
            notices.append("no vectors in this index: falling back to keyword search")
            mode = "bm25"
        scored: list[list[tuple[int, float]]] = []
        weights: list[float] = []
        bm25_index: int | None = None
        vec_indexes: list[int] = []
        query_vectors: list[npt.NDArray[np.float32]] = []
        pool = max(BM25_TOP_K, limit * 3) if notes else BM25_TOP_K
        file_ids = self._filtered_file_ids(filters, notices)

        if mode in ("hybrid", "bm25"):
            if self.has_fts:
                bm25_index = len(scored)
                # FTS5's bm25() is lower-is-better; fusion wants higher-is-better.
                keyword_hits = bm25_search(self.db, query, pool, file_ids=file_ids)
                scored.append([(cid, -score) for cid, score in keyword_hits])
                weights.append(bm25_weight)
                if analysis_notice := query_notice(self.db.meta(FTS_ANALYZER_META), query):
                    notices.append(analysis_notice)
            else:
                notices.append("keyword index unavailable: vector search only")
        if mode in ("hybrid", "vector"):
            if not sources:
                notices.append(
                    "no vectors in this index (sqlite-vec or model unavailable): "
                    "keyword search only"
                )
            elif mode == "hybrid" and has_cjk(query) and bm25_index is not None:
                # The bundled models are English-only: their neighbours of a Korean (CJK) query
                # are noise, so keywords alone rank it.
                notices.append("vector models are English-only: CJK query ranked by keywords")
                sources = []
            from vaultctx.search.vector import VECTOR_TOP_K, vector_search

            k = max(VECTOR_TOP_K, limit * 3) if notes else VECTOR_TOP_K
            if sources:
                self._count_vector_query()
            for source in sources:
                vec_indexes.append(len(scored))
                query_vectors.append(source.embed_query(query))
                hits = None
                if self.memory is not None:
                    hits = self.memory.search(source.table, query_vectors[-1], k, file_ids=file_ids)
                if hits is None:
                    hits = vector_search(
                        self.db, source.table, query_vectors[-1], k, file_ids=file_ids
                    )
                scored.append(hits)
                weights.append(source.weight if vec_weight is None else vec_weight)
        origins: dict[int, GraphOrigin] = {}
        if graph and not vec_indexes:
            notices.append("graph expansion needs vector hits: results not widened along links")
        elif graph:
            # The first source covers every chunk (see vector_sources): its hits are the seeds.
            graph_hits = graph_ranking(
                self.db,
                self.links.get(),
                sources[0].table,
                query_vectors[0],
                scored[vec_indexes[0]],
                depth,
            )
            if file_ids is not None:
                allowed = set(file_ids)
                note_of = chunk_notes(self.db, [h.chunk_id for h in graph_hits])
                graph_hits = [h for h in graph_hits if note_of.get(h.chunk_id) in allowed]
            origins = {hit.chunk_id: hit.origin for hit in graph_hits}
            keyword = [] if bm25_index is None else [scored[bm25_index]]
            scored = [*keyword, [(hit.chunk_id, hit.origin.score) for hit in graph_hits]]
            weights = [KEYWORD_WEIGHT] * len(keyword) + [GRAPH_WEIGHT]
            vec_indexes = [len(keyword)]
            fusion = "rrf"
        if fusion == "rrf":
            fused = fuse_rrf([[cid for cid, _ in hits] for hits in scored], weights)
        else:
            fused = fuse_scores(scored, weights)
        fused = [
            f
            for f in fused
            if any(r is not None and w > 0 for r, w in zip(f.ranks, weights, strict=True))
        ]
        rows = self._load([f.id for f in fused])
        if origins and bm25_index is not None:
            fused = reserve_keyword_slots(
                fused,
                limit,
                vector_list=vec_indexes[0],
                unit_of=lambda cid: rows[cid][0] if notes and cid in rows else cid,
            )
        results: list[SearchResult] = []
        seen_files: set[str] = set()
        for entry in fused:
            row = rows.get(entry.id)
            if row is None:
                continue
            path, title, section, text = row
            if notes:
                if path in seen_files:
                    continue
                seen_files.add(path)
            vec_ranks = [r for i in vec_indexes if (r := entry.ranks[i]) is not None]
            vec_rank = min(vec_ranks) if vec_ranks else None
            results.append(
                SearchResult(
                    file_path=path,
                    title=title,
                    section=section,
                    citation=citation_for(path, section),
                    text=text,
                    score=round(entry.score, 6),
                    bm25_rank=entry.ranks[bm25_index] if bm25_index is not None else None,
                    vec_rank=vec_rank,
                    chunk_id=entry.id,
                    graph=origins.get(entry.id),
                )
            )
            if len(results) == limit:
                break
        results = _budgeted(results, max_tokens, scrub=not self._scrubbed_at_index())
        mocs = related_mocs(self.links.get(), [r.file_path for r in results]) if origins else []
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(query, mode, results, took, notices, related_mocs=mocs)

    def _filtered_file_ids(
        self, filters: SearchFilter | None, notices: list[str]
    ) -> list[int] | None:
        """The notes a filtered search may return; None when every note may be returned."""
        if filters is None or filters.is_empty:
            return None
        from vaultctx.search.filters import matching_file_ids

        file_ids = matching_file_ids(self.db, filters)
        if not file_ids:
            shown = ", ".join(f"{key} {value}" for key, value in filters.describe().items())
            notices.append(f"no notes match the filters ({shown})")
        elif len(file_ids) == self.db.scalar("SELECT count(*) FROM files"):
            return None  # restricting the rankers to every note would only double their cost
        return file_ids

    def _load(self, ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            f"SELECT c.id, f.path, f.title, c.section, c.body FROM chunks c "
            f"JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})",
            ids,
        )
        return {int(r[0]): (str(r[1]), str(r[2]), str(r[3]), unpack_text(r[4])) for r in rows}


def _budgeted(results: list[SearchResult], max_tokens: int, *, scrub: bool) -> list[SearchResult]:
    """Scrub (defence in depth, SPEC §3) unless this scrubber already did at index time, and fit
    the texts into the token budget."""
    if scrub:
        results = [
            replace(
                r,
                text=scrub_secrets(r.text).text,
                title=scrub_secrets(r.title).text,
                file_path=scrub_secrets(r.file_path).text,
                section=scrub_secrets(r.section).text,
                citation=scrub_secrets(r.citation).text,
            )
            for r in results
        ]
    texts = fit_to_budget([r.text for r in results], max_tokens)
    return [replace(r, text=text) for r, text in zip(results, texts, strict=False)]
