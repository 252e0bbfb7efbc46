"""Graph expansion at its edges (search/graph.py ``expand``): a note seeded twice keeps its
better seed, a neighbour without vectors is passed over rather than ending the hop, hits come
best first, and a chunk appears once."""

from __future__ import annotations

import pytest

from tests.search.test_graph import by_chunk, ids, make_graph, similarity_of
from vaultctx.search.graph import Seed, expand


def test_a_note_seeded_twice_keeps_its_better_seed() -> None:
    graph = make_graph({"s": ["n"]})
    n = ids(graph)
    seeds = [Seed(1, n["s"], 1.0), Seed(2, n["s"], 0.2)]
    hits = by_chunk(expand(seeds, graph, similarity_of(graph, {"n": 0.7}), depth=1))
    neighbour = hits[100 + n["n"]]
    assert neighbour.relevance == pytest.approx(0.6 * 0.7 + 0.4 * 1.0)


def test_a_neighbour_without_vectors_does_not_end_the_hop() -> None:
    graph = make_graph({"s": ["bare", "b"]})
    n = ids(graph)
    hits = by_chunk(expand([Seed(1, n["s"], 1.0)], graph, similarity_of(graph, {"b": 0.9}), 1))
    assert 100 + n["b"] in hits and 100 + n["bare"] not in hits


def test_hits_come_best_score_first_and_each_chunk_once() -> None:
    graph = make_graph({"s": [], "t": []})
    n = ids(graph)
    seeds = [Seed(5, n["s"], 0.5), Seed(9, n["t"], 1.0), Seed(9, n["t"], 0.9)]
    hits = expand(seeds, graph, similarity_of(graph, {}), depth=1)
    assert [(hit.chunk_id, hit.origin.score) for hit in hits] == [(9, 1.0), (5, 0.5)]
