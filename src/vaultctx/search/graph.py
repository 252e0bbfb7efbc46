"""Graph RAG: the vault's link graph, and search widened along it.

The ``links`` table keeps links as written; they are resolved here, at query time, with
Obsidian's rule (``vault.links.LinkResolver``), because which note ``[[Plan]]`` means can change
whenever any note is added, renamed or given an alias. A warm process resolves the whole vault
once and again only after the indexer commits (``LinkGraphCache``).

Expansion (docs/reference.md#graph-search; the numbers live in ``ranking_constants.py``): vector
hits are seeds; the notes they link to and the notes linking to them are candidates, to
``depth`` links away. A candidate's relevance is 0.6 × its own
normalised similarity + 0.4 × its seed's; below 0.55 it is dropped; its score is the relevance
× 0.5 per link followed. The seeds and kept neighbours, ranked by score, are fused with the
keyword ranking by RRF (keyword weight 0.5), and two result slots are kept for keyword-only hits
so exact identifiers are not pushed out by meaning.
"""

from __future__ import annotations

import json
import posixpath
from collections import defaultdict
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from vaultctx.index.db import IndexDatabase
from vaultctx.index.link_queries import linkable_notes, written_links
from vaultctx.index.search_queries import chunk_notes
from vaultctx.index.vector_queries import note_chunk_vectors
from vaultctx.search.ranking_constants import (
    DECAY_PER_HOP,
    DEFAULT_DEPTH,
    MAX_CANDIDATES_PER_HOP,
    MAX_DEPTH,
    MIN_RELEVANCE,
    OWN_WEIGHT,
    RESERVED_KEYWORD_SLOTS,
    SEED_WEIGHT,
)
from vaultctx.vault.errors import VaultError
from vaultctx.vault.links import LinkResolver

if TYPE_CHECKING:
    # numpy only when a graph search runs: the hook's keyword search must not pay for its import.
    import numpy as np
    import numpy.typing as npt

MAX_RELATED_MOCS = 5
MOC_TYPE = "moc"

Role = Literal["seed", "neighbor"]


class UnknownNoteError(VaultError):
    """A note named by the user is not in the index."""


# --- the link graph -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphNote:
    id: int
    path: str
    title: str
    type: str | None

    @property
    def is_moc(self) -> bool:
        return (self.type or "").casefold() == MOC_TYPE


class ResolvedLink(NamedTuple):
    """One link as written in ``source`` (line numbers are the file's), and where it leads.

    A NamedTuple rather than a frozen dataclass: a vault has tens of thousands of links, and
    building them is a third of the cost of resolving the link graph.
    """

    source: str
    target: str
    heading: str | None
    block: str | None
    alias: str | None
    kind: str
    line: int
    resolved: str | None  # the file it means; None when nothing in the vault matches


class LinkGraph:
    """Notes and their resolved links; outlinks and backlinks by note id, in written order."""

    def __init__(
        self, notes: Sequence[GraphNote], links: Sequence[ResolvedLink], resolver: LinkResolver
    ) -> None:
        self.notes = {note.id: note for note in notes}
        self.links = list(links)
        self._resolver = resolver
        self._by_path = {note.path: note for note in notes}
        # dicts as ordered sets: a note linked twice is one neighbour, in first-link order.
        self._out: dict[int, dict[int, None]] = defaultdict(dict)
        self._in: dict[int, dict[int, None]] = defaultdict(dict)
        for link in self.links:
            source, target = self._by_path[link.source], self._by_path.get(link.resolved or "")
            if target is not None and target.id != source.id:
                self._out[source.id][target.id] = None
                self._in[target.id][source.id] = None

    def note(self, path: str) -> GraphNote | None:
        return self._by_path.get(path)

    def find(self, name: str) -> GraphNote | None:
        """A note by vault path, or by name or alias as a link from the vault root would find it."""
        exact = self._by_path.get(name)
        return exact or self._by_path.get(self._resolver.resolve(name, "") or "")

    def outlinks(self, note_id: int) -> list[int]:
        return list(self._out.get(note_id, ()))

    def backlinks(self, note_id: int) -> list[int]:
        return list(self._in.get(note_id, ()))

    def neighbours(self, note_id: int) -> list[int]:
        """Linked notes in both directions: the ones it links to first, as the author chose them."""
        outgoing = self._out.get(note_id, {})
        return [*outgoing, *(n for n in self._in.get(note_id, ()) if n not in outgoing)]


def load_link_graph(db: IndexDatabase, extra_paths: Iterable[str] = ()) -> LinkGraph:
    """Resolve every link in the index; ``extra_paths`` are files links may name besides notes.

    Resolution depends only on the target text and the linking note's folder, so each distinct
    pair is resolved once (the PowerShell docs: 55k links, 16k pairs).
    """
    notes: list[GraphNote] = []
    claims: list[tuple[str, list[str]]] = []
    for file_id, path, title, note_type, aliases in linkable_notes(db):
        notes.append(GraphNote(int(file_id), str(path), str(title), note_type))
        claims.append((str(path), _string_list(aliases)))
    known = {note.path for note in notes}
    claims += [(path, []) for path in extra_paths if path not in known]
    resolver = LinkResolver.from_notes(claims)
    path_of = {note.id: note.path for note in notes}
    folder_of = {note.id: posixpath.dirname(note.path) for note in notes}
    resolved: dict[tuple[str, str], str | None] = {}
    links: list[ResolvedLink] = []
    for file_id, target, heading, block, alias, kind, line in written_links(db):
        source = path_of.get(file_id)
        if source is None:
            continue
        key = (target, folder_of[file_id])
        if not target:  # [[#Heading]]: the note itself
            destination: str | None = source
        elif key in resolved:
            destination = resolved[key]
        else:
            destination = resolved[key] = resolver.resolve(target, source)
        links.append(ResolvedLink(source, target, heading, block, alias, kind, line, destination))
    return LinkGraph(notes, links, resolver)


def _string_list(raw: Any) -> list[str]:
    try:
        value = json.loads(raw) if raw else []
    except (TypeError, ValueError):
        return []
    return [str(item) for item in value] if isinstance(value, list) else []


class LinkGraphCache:
    """The link graph of one open index, rebuilt only after another connection has committed.

    SQLite's data version (``IndexDatabase.data_version``) changes exactly then, and costs
    microseconds to read, so a server answering many queries resolves the vault's links once per
    index change.
    """

    def __init__(self, db: IndexDatabase) -> None:
        self._db = db
        self._graph: LinkGraph | None = None
        self._version: int | None = None

    def get(self) -> LinkGraph:
        version = self._db.data_version()
        if self._graph is None or version != self._version:
            self._graph = load_link_graph(self._db)
            self._version = version
        return self._graph


# --- `vaultctx links` -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteLinks:
    path: str
    title: str
    outlinks: list[ResolvedLink]
    backlinks: list[ResolvedLink]

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "outlinks": [link._asdict() for link in self.outlinks],
            "backlinks": [link._asdict() for link in self.backlinks],
        }


def note_links(graph: LinkGraph, name: str) -> NoteLinks:
    """What a note links to (resolved or not) and what links to it, each with its line."""
    note = graph.find(name)
    if note is None:
        raise UnknownNoteError(
            f"no note {name!r} in the index",
            "give its vault-relative path (e.g. folder/Note.md), its name or an alias, or run "
            "`vaultctx index` if it is new",
        )
    outlinks = [link for link in graph.links if link.source == note.path]
    backlinks = [
        link for link in graph.links if link.resolved == note.path and link.source != note.path
    ]
    return NoteLinks(note.path, note.title, outlinks, backlinks)


def broken_links(graph: LinkGraph) -> list[ResolvedLink]:
    """Links that lead nowhere, by linking note then line."""
    broken = [link for link in graph.links if link.resolved is None]
    return sorted(broken, key=lambda link: (link.source, link.line))


# --- expansion ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphOrigin:
    """Why a result is in the graph ranking: a vector hit (seed) or a note linked to one."""

    role: Role
    hop: int
    relevance: float  # before decay
    score: float  # relevance × 0.5 per hop
    via: str | None = None  # the note it was reached from
    seed: str | None = None  # the seed note the path started at


# Plain records made per seed and per candidate: tuples, as ResolvedLink is.
class GraphHit(NamedTuple):
    chunk_id: int
    origin: GraphOrigin


class Seed(NamedTuple):
    chunk_id: int
    note_id: int
    similarity: float  # cosine, as the vector search returned it


NoteSimilarity = Callable[[Collection[int]], dict[int, tuple[int, float]]]


def normalised(similarity: float, best: float) -> float:
    """Similarity on 0–1 as a fraction of the best vector hit's.

    Relative, not absolute, because cosine scales differ by model (the static engine's
    unrelated texts sit near 0.3, MiniLM's near 0.1): a fixed 0.55 threshold means the same
    for both. Min-max over the hit list would not do: every chunk outside the list would score 0.
    """
    if best <= 0.0:
        return 0.0
    return min(1.0, max(0.0, similarity / best))


def neighbour_relevance(own: float, seed: float) -> float:
    return OWN_WEIGHT * own + SEED_WEIGHT * seed


def decayed(relevance: float, hop: int) -> float:
    return relevance * DECAY_PER_HOP**hop


def expand(
    seeds: Sequence[Seed],
    graph: LinkGraph,
    note_similarity: NoteSimilarity,
    depth: int = DEFAULT_DEPTH,
) -> list[GraphHit]:
    """Seeds and their linked neighbours to ``depth`` links, best score first.

    A neighbour takes the seed of the best-scoring path to it and is scored once, at the hop it
    is first reached; only kept neighbours lead further, so an irrelevant note is a dead end.
    ``note_similarity`` gives each note's chunk most similar to the query (cosine).
    """
    check_depth(depth)
    if not seeds:
        return []
    best = max(seed.similarity for seed in seeds)
    hits: list[GraphHit] = []
    seed_relevance: dict[int, float] = {}
    for seed in seeds:
        relevance = normalised(seed.similarity, best)
        hits.append(GraphHit(seed.chunk_id, GraphOrigin("seed", 0, _r(relevance), _r(relevance))))
        seed_relevance[seed.note_id] = max(relevance, seed_relevance.get(seed.note_id, 0.0))
    ordered = sorted(seed_relevance.items(), key=lambda item: -item[1])
    frontier = [(note, note, relevance) for note, relevance in ordered]
    visited = set(seed_relevance)
    for hop in range(1, depth + 1):
        candidates = _candidates(graph, frontier, visited)
        visited.update(candidates)
        similarity = note_similarity(candidates)
        frontier = []
        for note, (via, seed_note, seed_rel) in candidates.items():
            if note not in similarity:
                continue  # no vectors for this note
            chunk_id, own = similarity[note]
            relevance = neighbour_relevance(normalised(own, best), seed_rel)
            if relevance < MIN_RELEVANCE:
                continue
            origin = GraphOrigin(
                "neighbor",
                hop,
                _r(relevance),
                _r(decayed(relevance, hop)),
                via=graph.notes[via].path,
                seed=graph.notes[seed_note].path,
            )
            hits.append(GraphHit(chunk_id, origin))
            frontier.append((note, seed_note, seed_rel))
    hits.sort(key=lambda hit: (-hit.origin.score, hit.origin.hop, hit.chunk_id))
    return _first_per_chunk(hits)


def check_depth(depth: int) -> None:
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"graph depth must be 0 to {MAX_DEPTH} links (got {depth})")


def _candidates(
    graph: LinkGraph, frontier: list[tuple[int, int, float]], visited: set[int]
) -> dict[int, tuple[int, int, float]]:
    """Unvisited neighbours of the frontier → (via, seed, seed relevance), best seed first."""
    found: dict[int, tuple[int, int, float]] = {}
    for note, seed_note, seed_rel in frontier:
        for neighbour in graph.neighbours(note):
            if neighbour not in visited and neighbour not in found:
                found[neighbour] = (note, seed_note, seed_rel)
                if len(found) == MAX_CANDIDATES_PER_HOP:
                    return found
    return found


def _first_per_chunk(hits: list[GraphHit]) -> list[GraphHit]:
    seen: set[int] = set()
    kept = []
    for hit in hits:
        if hit.chunk_id not in seen:
            seen.add(hit.chunk_id)
            kept.append(hit)
    return kept


def _r(value: float) -> float:
    return round(value, 6)


# --- stored vectors -------------------------------------------------------------------------------


def graph_ranking(
    db: IndexDatabase,
    graph: LinkGraph,
    table: str,
    query_vector: npt.NDArray[np.float32],
    vector_hits: Sequence[tuple[int, float]],
    depth: int = DEFAULT_DEPTH,
) -> list[GraphHit]:
    """§7's vector-side ranking from one vector table's hits (chunk id, cosine), best first."""
    note_of = chunk_notes(db, [chunk_id for chunk_id, _ in vector_hits])
    seeds = [
        Seed(chunk_id, note_of[chunk_id], similarity)
        for chunk_id, similarity in vector_hits
        if chunk_id in note_of
    ]
    query = _as_stored(query_vector)
    return expand(seeds, graph, lambda notes: note_similarities(db, table, query, notes), depth)


def note_similarities(
    db: IndexDatabase, table: str, query: npt.NDArray[np.float32], note_ids: Collection[int]
) -> dict[int, tuple[int, float]]:
    """Each note's best chunk and its cosine similarity to ``query``, from the stored vectors."""
    rows = note_chunk_vectors(db, table, note_ids)
    if not rows:
        return {}
    import numpy as np

    matrix = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype=np.int8)
    similarities = _cosine(matrix.reshape(len(rows), -1).astype(np.float32), query)
    best: dict[int, tuple[int, float]] = {}
    for (chunk_id, note_id, _), similarity in zip(rows, similarities.tolist(), strict=True):
        if note_id not in best or similarity > best[note_id][1]:
            best[note_id] = (chunk_id, similarity)
    return best


def _as_stored(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The query as the vector search compared it: int8-quantised, so similarities agree."""
    import numpy as np

    from vaultctx.embed.base import quantize_int8

    return np.frombuffer(quantize_int8(np.asarray(vector, np.float32)), np.int8).astype(np.float32)


def _cosine(
    matrix: npt.NDArray[np.float32], query: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    dots = matrix @ query
    cosines: npt.NDArray[np.float32] = np.divide(
        dots, norms, out=np.zeros_like(dots), where=norms > 0
    )
    return cosines


# --- fusion and wider context ---------------------------------------------------------------------


Ranked = TypeVar("Ranked")


def reserve_keyword_slots(
    fused: Sequence[Ranked],
    limit: int,
    *,
    in_vectors: Callable[[Ranked], bool],
    unit_of: Callable[[Ranked], Hashable],
) -> list[Ranked]:
    """``fused`` reordered so the first ``limit`` units include up to two keyword-only hits.

    RRF with keyword weight 0.5 ranks the best keyword-only hit (0.5/61) below the tenth vector
    hit (1/70): without reserved slots an error code or a version string found only by keywords
    would never be shown. A unit is a chunk, or a note when results are one per note; a note is
    keyword-only when none of its chunks is in the vector (graph) ranking, which ``in_vectors``
    tells of each entry. Order otherwise stays fused. Short lists reserve at most half their
    slots (``limit`` 3 keeps two for the fused ranking).
    """
    reserved = min(RESERVED_KEYWORD_SLOTS, limit // 2)
    vector_units = {unit_of(entry) for entry in fused if in_vectors(entry)}
    chosen: dict[Hashable, int] = {}

    def take(until: int, keyword_only: bool) -> None:
        for position, entry in enumerate(fused):
            if len(chosen) >= until:
                return
            unit = unit_of(entry)
            if unit not in chosen and not (keyword_only and unit in vector_units):
                chosen[unit] = position

    take(limit - reserved, keyword_only=False)
    take(limit, keyword_only=True)
    take(limit, keyword_only=False)
    picked = sorted(chosen.values())
    rest = set(range(len(fused))) - set(picked)
    return [fused[i] for i in picked] + [fused[i] for i in sorted(rest)]


@dataclass(frozen=True)
class RelatedMoc:
    """A map of content linking to results: wider context than the passages themselves."""

    path: str
    title: str
    links_to: list[str] = field(default_factory=list)


def related_mocs(graph: LinkGraph, hit_paths: Sequence[str]) -> list[RelatedMoc]:
    """MOC notes (``type: moc``) that link to the hits, those linking to more hits first."""
    hits = list(dict.fromkeys(hit_paths))
    linked: dict[int, list[str]] = {}
    for path in hits:
        note = graph.note(path)
        if note is None:
            continue
        for source in graph.backlinks(note.id):
            moc = graph.notes[source]
            if moc.is_moc and moc.path not in hits:
                linked.setdefault(source, []).append(path)
    ranked = sorted(
        linked.items(),
        key=lambda item: (-len(item[1]), hits.index(item[1][0]), graph.notes[item[0]].path),
    )
    return [
        RelatedMoc(graph.notes[moc].path, graph.notes[moc].title, targets)
        for moc, targets in ranked[:MAX_RELATED_MOCS]
    ]
