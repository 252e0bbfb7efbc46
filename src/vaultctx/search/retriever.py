"""The search facade: one ``SearchRequest`` in, ranked, scrubbed and budgeted passages out.

``Retriever.search`` runs four steps, each its own function:

1. rank each list: BM25, one list per vector model, and the notes whose title is the query,
   over the notes the filters allow;
2. expand by graph: with ``request.graph`` the vector lists give way to the graph ranking
   (``graph.py``), seeded by the first vector list;
3. fuse: the lists become one ranking of ``Candidate`` chunks (``fusion.py``), a note named by
   the query first;
4. assemble: one result per chunk (or note), scrubbed and fitted to the token budget.

Integrations call ``Retriever.search`` (through ``Vault.search``) and never run SQL. Which rankers
run follows what the index can do: no sqlite-vec or no vectors → BM25 only; no FTS table →
vectors only. Each degradation is reported in ``SearchResponse.notices`` instead of failing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from vaultctx.index.db import IndexDatabase
from vaultctx.index.hangul import index_has_hangul
from vaultctx.index.languages import chunk_languages
from vaultctx.index.schema import FTS_TABLE
from vaultctx.index.search_queries import (
    chunk_notes,
    chunks_not_in,
    note_count,
    passages,
    quality_vectors_complete,
    title_candidates,
)
from vaultctx.scrub import scrub_secrets
from vaultctx.scrub.fingerprint import SCRUBBER_META, scrubber_fingerprint
from vaultctx.search.bm25 import bm25_search
from vaultctx.search.budget import fit_to_budget
from vaultctx.search.fts_query import build_title_query, title_key
from vaultctx.search.fusion import Fused, fuse_rrf, fuse_scores
from vaultctx.search.graph import (
    GraphOrigin,
    LinkGraphCache,
    RelatedMoc,
    graph_ranking,
    related_mocs,
    reserve_keyword_slots,
)
from vaultctx.search.keyword_coverage import keyword_coverage
from vaultctx.search.language_routing import Route, meaning_weight, route_question
from vaultctx.search.query_vectors import embedded_side_by_side
from vaultctx.search.ranking_constants import (
    BM25_TOP_K,
    GRAPH_WEIGHT,
    NOTE_POOL_PER_RESULT,
    VECTOR_TOP_K,
)
from vaultctx.search.request import Mode, SearchRequest
from vaultctx.text.language import ENGLISH, text_language
from vaultctx.text.lexical import FTS_ANALYZER_META, query_notice

if TYPE_CHECKING:
    # numpy only on the vector path: the hook's keyword search must not pay for its import.
    import numpy as np
    import numpy.typing as npt

    from vaultctx.search.filters import Filters
    from vaultctx.search.vector_memory import InMemoryVectors

# The vector query after which a retriever starts holding vectors in memory (vector_memory.py).
VECTORS_IN_MEMORY_AFTER = 3

QueryEmbedder = Callable[[str], "npt.NDArray[np.float32]"]
Ranker = Literal["bm25", "vector", "graph", "title"]

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
    graph: GraphOrigin | None = None  # why a graph search returned it

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
    """One vector table, the function that embeds a query into its space, its fusion weight, and
    the cosine below which its nearest chunk is not about the query (0: never said)."""

    table: str
    embed_query: QueryEmbedder
    weight: float
    weak_below: float = 0.0


@dataclass(frozen=True)
class RankedList:
    """One ranker's hits for the query, best first, and the weight fusion gives them.

    ``hits`` are (chunk id, score), the score growing with relevance; a vector list also keeps
    its table and the query's vector in that table's space, which graph expansion starts from.
    """

    ranker: Ranker
    hits: list[tuple[int, float]]
    weight: float
    table: str = ""
    query_vector: npt.NDArray[np.float32] | None = None
    weak_below: float = 0.0  # a vector list's: see VectorSource
    bounds: tuple[float, float] | None = None  # score fusion's scale, when not the hits' own

    @property
    def weak(self) -> bool:
        """A vector list whose nearest chunk is too far to be about the query."""
        best = self.hits[0][1] if self.hits else 0.0
        return self.ranker == "vector" and best < self.weak_below


@dataclass(frozen=True)
class Candidate:
    """A chunk in the fused ranking, and where each ranker placed it."""

    chunk_id: int
    score: float
    bm25_rank: int | None
    vec_rank: int | None  # its best rank in a vector list, or in the graph list
    graph: GraphOrigin | None = None


@dataclass
class _Search:
    """One request on its way through the steps: the rankers it gets and what it reports."""

    request: SearchRequest
    mode: Mode
    sources: list[VectorSource]
    file_ids: list[int] | None  # the notes the filters allow; None: every note
    notices: list[str]
    keyword_scale: float = 1.0  # language_routing.py: BM25 read the question's language?
    # The multilingual list adds only chunks not in this language (language_routing.py).
    only_not_in: str | None = None
    # Its measured weight when BM25 missed the question (language_routing.meaning_weight).
    meaning_weight: float | None = None


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
        # Vectors any language can query (vector_sources.py); None: routing as before them.
        self.multilingual: VectorSource | None = None
        # Degradations found while the sources were set up (a remote engine that is down, say),
        # reported with every search this retriever answers.
        self.source_notices: list[str] = []
        self.has_fts = db.has_table(FTS_TABLE)
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
        """Pass 2 leaves a Korean vault's chunks to the multilingual vectors: without those
        (engine missing at search time) its chunks count as undone, so the static vectors
        still reach them."""
        return quality_vectors_complete(self.db, scoped=self.multilingual is not None)

    def search(self, request: SearchRequest) -> SearchResponse:
        """The passages that answer ``request`` best, within its limit and token budget.

        The filters restrict every ranker before it ranks, so ``limit`` results come back
        whenever enough notes match; graph neighbours outside them are dropped.
        """
        started = time.perf_counter()
        search = self._start(request)
        lists = self._rank_each_list(search)
        weak = _weak_match_notice(lists)
        lists, origins = self._expand_by_graph(search, lists)
        candidates = self._fuse(search, lists, origins)
        results = self._assemble(search, candidates, keyword_slots=bool(origins))
        if weak and results and all(result.bm25_rank is None for result in results):
            search.notices.append(weak)
        mocs = related_mocs(self.links.get(), [r.file_path for r in results]) if origins else []
        took = (time.perf_counter() - started) * 1000
        return SearchResponse(request.query, search.mode, results, took, search.notices, mocs)

    # --- which rankers the request gets ----------------------------------------------------------

    def _start(self, request: SearchRequest) -> _Search:
        notices: list[str] = list(self.source_notices)
        if (request.mode != "bm25" or not self.has_fts) and self.multilingual is not None:
            mode, sources, route = self._routed(request, notices)
            scale = route.keyword_scale
            # The cut leaves the question's own language to the list that reads it (keywords, or
            # the English vectors): with neither, the multilingual list ranks every chunk.
            keywords = mode != "vector" and self.has_fts
            others = keywords or any(source is not self.multilingual for source in sources)
            cut = route.multilingual_foreign_only and others
            only_not_in = text_language(request.query) if cut else None
        else:
            mode, sources = self._rankers(request, notices)
            scale, only_not_in = 1.0, None
        file_ids = self._filtered_file_ids(request.filters, notices)
        return _Search(request, mode, sources, file_ids, notices, scale, only_not_in)

    def _routed(
        self, request: SearchRequest, notices: list[str]
    ) -> tuple[Mode, list[VectorSource], Route]:
        """The rankers that can read the question (language_routing.py), for an index with
        multilingual vectors, and the route that chose them."""
        assert self.multilingual is not None
        mode = request.mode
        route = route_question(text_language(request.query), chunk_languages(self.db))
        sources = self.vector_sources() if route.english_vectors else []
        if route.multilingual:
            sources = [*sources, self.multilingual]
        if mode == "bm25":  # only without the keyword index (``_start``)
            notices.append("keyword index unavailable: falling back to vector search")
            mode = "vector"
        if mode == "hybrid" and not self.has_fts:
            notices.append("keyword index unavailable: vector search only")
        return mode, sources, route

    def _rankers(
        self, request: SearchRequest, notices: list[str]
    ) -> tuple[Mode, list[VectorSource]]:
        """The mode this index can serve and the vector models to ask, each change a notice."""
        mode = request.mode
        if mode == "bm25" and not self.has_fts:
            notices.append("keyword index unavailable: falling back to vector search")
            mode = "vector"
        sources = self.vector_sources() if mode != "bm25" else []
        if mode == "vector" and not sources and self.has_fts:
            notices.append("no vectors in this index: falling back to keyword search")
            return "bm25", []
        if mode == "hybrid" and not self.has_fts:
            notices.append("keyword index unavailable: vector search only")
        if mode != "bm25" and not sources:
            notices.append(
                "no vectors in this index (sqlite-vec or model unavailable): keyword search only"
            )
        elif mode == "hybrid" and self.has_fts and has_cjk(request.query):
            # The bundled models are English-only: their neighbours of a Korean (CJK) query are
            # noise, so keywords alone rank it.
            notices.append("vector models are English-only: CJK query ranked by keywords")
            sources = []
        return mode, sources

    def _filtered_file_ids(self, filters: Filters, notices: list[str]) -> list[int] | None:
        """The notes a filtered search may return; None when every note may be returned."""
        if filters.is_empty:
            return None
        from vaultctx.search.filters import matching_file_ids

        file_ids = matching_file_ids(self.db, filters)
        if not file_ids:
            shown = ", ".join(f"{key} {value}" for key, value in filters.describe().items())
            notices.append(f"no notes match the filters ({shown})")
        elif len(file_ids) == note_count(self.db):
            return None  # restricting the rankers to every note would only double their cost
        return file_ids

    # --- 1. rank each list -----------------------------------------------------------------------

    def _rank_each_list(self, search: _Search) -> list[RankedList]:
        keywords = search.mode != "vector" and self.has_fts and search.keyword_scale > 0
        lists = [self._keyword_list(search)] if keywords else []
        if lists and search.only_not_in is not None and search.mode == "hybrid":
            self._trust_meaning_if_keywords_missed(search, lists[0])
        if search.sources:
            self._count_vector_query()
        vectors = embedded_side_by_side(
            search.request.query, [source.embed_query for source in search.sources]
        )
        lists += [
            self._vector_list(search, source, vector)
            for source, vector in zip(search.sources, vectors, strict=True)
        ]
        return [*lists, self._title_list(search)]

    def _keyword_list(self, search: _Search) -> RankedList:
        request = search.request
        k = _pool(request, BM25_TOP_K)
        hits = bm25_search(self.db, request.query, k, file_ids=search.file_ids)
        if analysis_notice := query_notice(self.db.meta(FTS_ANALYZER_META), request.query):
            search.notices.append(analysis_notice)
        # FTS5's bm25() is lower-is-better; fusion wants higher-is-better.
        weight = request.weights.keyword(graph=False) * search.keyword_scale
        return RankedList("bm25", [(chunk_id, -score) for chunk_id, score in hits], weight)

    def _trust_meaning_if_keywords_missed(self, search: _Search, keywords: RankedList) -> None:
        """A question BM25 plainly missed lets the multilingual list rank its own language too
        (language_routing.py, ``meaning_weight``). English questions keep the English vectors."""
        if search.only_not_in == ENGLISH or self.multilingual not in search.sources:
            return
        best = keywords.hits[0][0] if keywords.hits else None
        coverage = keyword_coverage(self.db, search.request.query, best)
        weight = meaning_weight(coverage) if coverage is not None else 0.0
        if weight > 0:
            search.only_not_in, search.meaning_weight = None, weight

    def _vector_list(
        self, search: _Search, source: VectorSource, vector: npt.NDArray[np.float32]
    ) -> RankedList:
        request = search.request
        from vaultctx.search.vector import vector_search

        k = _pool(request, VECTOR_TOP_K)
        hits = None
        if self.memory is not None:
            hits = self.memory.search(source.table, vector, k, file_ids=search.file_ids)
        if hits is None:
            hits = vector_search(self.db, source.table, vector, k, file_ids=search.file_ids)
        measured = source.weight
        if source is self.multilingual and search.meaning_weight is not None:
            measured = search.meaning_weight
        weight = request.weights.vectors(measured)
        ranked = RankedList("vector", hits, weight, source.table, vector, source.weak_below)
        if search.only_not_in and source is self.multilingual and hits:
            return _foreign_only(self.db, ranked, search.only_not_in)
        return ranked

    def _title_list(self, search: _Search) -> RankedList:
        """The first chunk of each note whose title is the query, case and punctuation aside:
        typing a note's name asks for that note (``compost`` → ``Compost``, not the passage that
        says compost most). Looked up, not ranked, so it is found even outside the other lists;
        its weight is set when fusing. Needs the keyword index, which holds the titles."""
        query = search.request.query
        match = build_title_query(
            query, self.db.meta(FTS_ANALYZER_META), index_korean=index_has_hangul(self.db)
        )
        if not self.has_fts or match is None or search.file_ids == []:
            return RankedList("title", [], 0.0)
        first: dict[int, int] = {}  # note → its first chunk
        for note, title, chunk in title_candidates(self.db, match, search.file_ids):
            if title_key(title) == title_key(query):
                first.setdefault(note, chunk)
        return RankedList("title", [(chunk, 1.0) for chunk in first.values()], 0.0)

    # --- 2. expand by graph ----------------------------------------------------------------------

    def _expand_by_graph(
        self, search: _Search, lists: list[RankedList]
    ) -> tuple[list[RankedList], dict[int, GraphOrigin]]:
        """The keyword list and the graph ranking in place of the vector lists, with the graph
        ranking's weights, and why each graph hit is there; ``lists`` unchanged without
        ``graph`` or without vectors."""
        request = search.request
        vectors = [ranked for ranked in lists if ranked.ranker == "vector"]
        if not request.graph:
            return lists, {}
        if not vectors:
            search.notices.append(
                "graph expansion needs vector hits: results not widened along links"
            )
            return lists, {}
        # The first source covers every chunk (see vector_sources): its hits are the seeds.
        seeds = vectors[0]
        assert seeds.query_vector is not None
        hits = graph_ranking(
            self.db, self.links.get(), seeds.table, seeds.query_vector, seeds.hits, request.depth
        )
        if search.file_ids is not None:
            allowed = set(search.file_ids)
            note_of = chunk_notes(self.db, [hit.chunk_id for hit in hits])
            hits = [hit for hit in hits if note_of.get(hit.chunk_id) in allowed]
        ranked = [(hit.chunk_id, hit.origin.score) for hit in hits]
        graph = RankedList("graph", ranked, request.weights.vectors(GRAPH_WEIGHT))
        keyword = [
            replace(ranked, weight=request.weights.keyword(graph=True))
            for ranked in lists
            if ranked.ranker == "bm25"
        ]
        title = [ranked for ranked in lists if ranked.ranker == "title"]
        return [*keyword, graph, *title], {hit.chunk_id: hit.origin for hit in hits}

    # --- 3. fuse ---------------------------------------------------------------------------------

    def _fuse(
        self, search: _Search, lists: list[RankedList], origins: dict[int, GraphOrigin]
    ) -> list[Candidate]:
        """One ranking of the chunks any list holds; a chunk only in lists of weight 0 is out.

        The fusion asked for, else the one each ranking was measured with: score fusion, or RRF
        for the graph ranking (graph.py). The title list outweighs all the others together, so a
        note named by the query ranks first whichever fusion and weights are chosen.
        """
        ranked_weight = sum(ranked.weight for ranked in lists if ranked.ranker != "title")
        weights = [
            1.0 + ranked_weight if ranked.ranker == "title" else ranked.weight for ranked in lists
        ]
        if (search.request.fusion or ("rrf" if origins else "score")) == "rrf":
            fused = fuse_rrf(
                [[chunk_id for chunk_id, _ in ranked.hits] for ranked in lists], weights
            )
        else:
            bounds = [ranked.bounds for ranked in lists]
            fused = fuse_scores([ranked.hits for ranked in lists], weights, bounds)
        return [
            _candidate(entry, lists, origins)
            for entry in fused
            if any(rank is not None and w > 0 for rank, w in zip(entry.ranks, weights, strict=True))
        ]

    # --- 4. assemble -----------------------------------------------------------------------------

    def _assemble(
        self, search: _Search, candidates: list[Candidate], *, keyword_slots: bool
    ) -> list[SearchResult]:
        """The first ``limit`` candidates as results (one per note with ``notes``), scrubbed and
        within the token budget. A graph ranking keeps two slots for keyword-only hits."""
        request = search.request
        rows = passages(self.db, [candidate.chunk_id for candidate in candidates])
        candidates = [candidate for candidate in candidates if candidate.chunk_id in rows]
        if keyword_slots:
            candidates = reserve_keyword_slots(
                candidates,
                request.limit,
                in_vectors=lambda candidate: candidate.vec_rank is not None,
                unit_of=_unit(request.notes, rows),
            )
        results: list[SearchResult] = []
        seen_notes: set[str] = set()
        for candidate in candidates:
            path = rows[candidate.chunk_id][0]
            if request.notes and path in seen_notes:
                continue
            seen_notes.add(path)
            results.append(_result(candidate, rows[candidate.chunk_id]))
            if len(results) == request.limit:
                break
        return _budgeted(results, request.max_tokens, scrub=not self._scrubbed_at_index())


def _weak_match_notice(lists: list[RankedList]) -> str | None:
    """The notice for results that are only the least distant chunks, not relevant ones: when
    every vector list is weak and no note is titled as the query (and, checked by the caller, no
    result has a keyword hit)."""
    vectors = [ranked for ranked in lists if ranked.ranker == "vector"]
    titled = any(ranked.hits for ranked in lists if ranked.ranker == "title")
    if titled or not vectors or not all(ranked.weak for ranked in vectors):
        return None
    best = max((ranked.hits[0][1] for ranked in vectors if ranked.hits), default=0.0)
    return (
        f"weak matches: no result contains the query's words and none is close in meaning "
        f"(best similarity {best:.2f}); the notes may not cover this, or try other words"
    )


def _foreign_only(db: IndexDatabase, ranked: RankedList, language: str) -> RankedList:
    """The multilingual list with only its chunks not in ``language`` (the question's, which
    the other lists read), on the scale of all its hits (language_routing.py)."""
    scores = [score for _, score in ranked.hits]
    foreign = chunks_not_in(db, [chunk for chunk, _ in ranked.hits], language)
    hits = [(chunk, score) for chunk, score in ranked.hits if chunk in foreign]
    return replace(ranked, hits=hits, bounds=(min(scores), max(scores)))


def _pool(request: SearchRequest, top_k: int) -> int:
    """How many hits a ranker returns: its top k, or more when results are one per note."""
    return max(top_k, request.limit * NOTE_POOL_PER_RESULT) if request.notes else top_k


def _candidate(entry: Fused, lists: list[RankedList], origins: dict[int, GraphOrigin]) -> Candidate:
    ranks = list(zip(entry.ranks, lists, strict=True))
    keyword = [rank for rank, ranked in ranks if rank is not None and ranked.ranker == "bm25"]
    vector = [
        rank for rank, ranked in ranks if rank is not None and ranked.ranker in ("vector", "graph")
    ]
    return Candidate(
        entry.id,
        round(entry.score, 6),
        keyword[0] if keyword else None,
        min(vector, default=None),
        origins.get(entry.id),
    )


def _unit(
    notes: bool, rows: dict[int, tuple[str, str, str, str]]
) -> Callable[[Candidate], Hashable]:
    """What one result is: a chunk, or a note when results are one per note."""
    if notes:
        return lambda candidate: rows[candidate.chunk_id][0]
    return lambda candidate: candidate.chunk_id


def _result(candidate: Candidate, row: tuple[str, str, str, str]) -> SearchResult:
    path, title, section, text = row
    return SearchResult(
        file_path=path,
        title=title,
        section=section,
        citation=citation_for(path, section),
        text=text,
        score=candidate.score,
        bm25_rank=candidate.bm25_rank,
        vec_rank=candidate.vec_rank,
        chunk_id=candidate.chunk_id,
        graph=candidate.graph,
    )


def _budgeted(results: list[SearchResult], max_tokens: int, *, scrub: bool) -> list[SearchResult]:
    """Scrub (defence in depth) unless this scrubber already did at index time, and fit the texts
    into the token budget."""
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
