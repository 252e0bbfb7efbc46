"""What the model reads with each question: the vault's best passages, each under its citation.

One hybrid search per query (the question, and its translation when the question's language is
not the vault's), the lists fused by rank, the passages fitted to a token budget. The model is
told to copy the citations as they are, so ``verify_citations`` can check every one it makes.

Graph RAG, as the seed assistant does it, but without giving up the measured ranking: the
hybrid passages come first, exactly as ``vaultctx search`` ranks them, and after them up to
``LINKED_PASSAGES`` passages of notes linked to the hits (``search/graph.py``'s expansion),
which the budget drops first. Graph ranking in place of hybrid lowered SciFact and the Obsidian
Help link-target set (docs/benchmarks.md, "Graph RAG"); appended, it can only add context
(docs/benchmarks.md, "Graph RAG in chat").
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from vaultctx.search.budget import fit_to_budget
from vaultctx.search.fusion import fuse_rrf
from vaultctx.search.ranking_constants import VECTOR_TOP_K
from vaultctx.search.request import SearchRequest
from vaultctx.text.cjk import hangul_word_share

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.search.retriever import SearchResult

# Enough passages to answer most questions; the token budget decides how many are really sent.
PASSAGES = 8
# Passages of linked notes added after the ranked ones (the module's docstring says why after).
LINKED_PASSAGES = 3
# A question is Korean when most of its words are; a vault "has" a language above this share.
KOREAN_QUESTION = 0.5
LANGUAGE_PRESENT = 0.1


@dataclass(frozen=True)
class Passage:
    citation: str  # path#Heading, as search returns it
    link: str  # the same as the wikilink the model is asked to write
    title: str
    text: str


@dataclass(frozen=True)
class Retrieved:
    passages: list[Passage]
    queries: list[str]
    took_ms: float
    notices: list[str] = field(default_factory=list)


def wikilink(citation: str) -> str:
    """``a/Note.md#Heading`` as ``[[a/Note#Heading]]``, the form Obsidian users write."""
    path, _, anchor = citation.partition("#")
    if path.lower().endswith(".md"):
        path = path[:-3]
    return f"[[{path}#{anchor}]]" if anchor else f"[[{path}]]"


def translation_target(question: str, korean_share: float) -> str | None:
    """The language to translate ``question`` into so it meets the vault's notes, or None.

    The bundled embedders are English-only and BM25 matches words, so an English question over
    Korean notes (or the reverse) finds nothing unless it is also asked in the notes' language.
    """
    korean_question = hangul_word_share([question]) > KOREAN_QUESTION
    if korean_question and korean_share < 1 - LANGUAGE_PRESENT:
        return "English"
    if not korean_question and korean_share >= LANGUAGE_PRESENT:
        return "Korean"
    return None


def retrieve(
    vault: Vault,
    queries: Sequence[str],
    *,
    max_tokens: int,
    graph: bool = False,
    limit: int = PASSAGES,
) -> Retrieved:
    """The best passages for ``queries`` (one list each, fused by rank) within ``max_tokens``,
    then, with ``graph``, passages of the notes they link to or are linked from."""
    started = time.perf_counter()
    lists: list[list[SearchResult]] = []
    linked: list[SearchResult] = []
    notices: list[str] = []
    for query in dict.fromkeys(q.strip() for q in queries if q.strip()):
        request = SearchRequest(query, limit=limit, max_tokens=max_tokens)
        response = vault.search(request)
        lists.append(response.results)
        notices.extend(n for n in response.notices if n not in notices)
        if graph:
            linked += linked_results(vault, request)
    results = fuse_results(lists, limit)
    results += with_links(results, linked)
    texts = fit_to_budget([result.text for result in results], max_tokens)
    passages = [
        Passage(result.citation, wikilink(result.citation), result.title, text)
        for result, text in zip(results, texts, strict=False)  # fit_to_budget may drop the tail
    ]
    took = (time.perf_counter() - started) * 1000
    return Retrieved(passages, [q for q in queries if q.strip()], took, notices)


def linked_results(vault: Vault, request: SearchRequest) -> list[SearchResult]:
    """The passages a graph search reaches only through links (best first), for ``request``.

    Neighbours rank under the hits they were reached from (×0.5 per link), so the graph ranking
    is read to its vector pool's depth, unbudgeted: the caller fits the passages it keeps."""
    pool = max(request.limit, VECTOR_TOP_K)
    response = vault.search(replace(request, graph=True, limit=pool, max_tokens=pool * 1000))
    return [r for r in response.results if r.graph is not None and r.graph.role == "neighbor"]


def with_links(
    results: Sequence[SearchResult], linked: Sequence[SearchResult]
) -> list[SearchResult]:
    """Up to ``LINKED_PASSAGES`` of ``linked`` reached from a note of ``results`` and not already
    among them, best first, to add after them: the model sees where each link starts."""
    seen = {result.chunk_id for result in results}
    shown = {result.file_path for result in results}
    added: list[SearchResult] = []
    for result in linked:
        if len(added) == LINKED_PASSAGES:
            break
        origin = result.graph
        if result.chunk_id not in seen and origin is not None and origin.via in shown:
            seen.add(result.chunk_id)
            added.append(result)
    return added


def fuse_results(lists: Sequence[Sequence[SearchResult]], limit: int) -> list[SearchResult]:
    """One ranking from the lists of several queries (RRF on chunk ids; one list as it is)."""
    if len(lists) == 1:
        return list(lists[0][:limit])
    by_id = {result.chunk_id: result for results in lists for result in results}
    fused = fuse_rrf([[result.chunk_id for result in results] for results in lists])
    return [by_id[item.id] for item in fused[:limit]]


def passages_block(retrieved: Retrieved) -> str:
    """The passages as the model sees them; empty text when the vault had nothing."""
    if not retrieved.passages:
        return "No passage in the notes matched this question."
    from pydantic_ai.framing import register_tag, wrap

    tag = register_tag("passage")
    parts = ["Passages from the user's notes (cite them as shown):"]
    parts += [wrap(tag, passage.text, cite=passage.link) for passage in retrieved.passages]
    return "\n\n".join(parts)
