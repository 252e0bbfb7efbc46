"""Graph RAG scoring (SPEC §7) on hand-built link graphs: the numbers, the hops, the slots."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from vaultctx.search.fusion import Fused, fuse_rrf
from vaultctx.search.graph import (
    GraphHit,
    GraphNote,
    GraphOrigin,
    LinkGraph,
    NoteSimilarity,
    ResolvedLink,
    Seed,
    decayed,
    expand,
    neighbour_relevance,
    normalised,
    related_mocs,
    reserve_keyword_slots,
)
from vaultctx.search.ranking_constants import MAX_CANDIDATES_PER_HOP
from vaultctx.vault.links import LinkResolver


def make_graph(edges: dict[str, list[str]], types: dict[str, str] | None = None) -> LinkGraph:
    """Notes named by ``edges`` (and their targets), ids 1, 2, … in order of first mention."""
    names = list(dict.fromkeys([*edges, *(t for targets in edges.values() for t in targets)]))
    notes = [
        GraphNote(i, f"{name}.md", name.upper(), (types or {}).get(name))
        for i, name in enumerate(names, start=1)
    ]
    links = [
        ResolvedLink(f"{source}.md", target, None, None, None, "wikilink", line, f"{target}.md")
        for source, targets in edges.items()
        for line, target in enumerate(targets, start=1)
    ]
    return LinkGraph(notes, links, LinkResolver([note.path for note in notes], {}))


def ids(graph: LinkGraph) -> dict[str, int]:
    return {note.path.removesuffix(".md"): note.id for note in graph.notes.values()}


def similarity_of(
    graph: LinkGraph, own: dict[str, float], calls: list[set[int]] | None = None
) -> NoteSimilarity:
    """A note_similarity callback: each note's best chunk is 100 + its id."""
    by_id = {ids(graph)[name]: value for name, value in own.items()}

    def lookup(note_ids: Collection[int]) -> dict[int, tuple[int, float]]:
        if calls is not None:
            calls.append(set(note_ids))
        return {n: (100 + n, by_id[n]) for n in note_ids if n in by_id}

    return lookup


def by_chunk(hits: list[GraphHit]) -> dict[int, GraphOrigin]:
    return {hit.chunk_id: hit.origin for hit in hits}


def test_the_seeds_worked_example() -> None:
    """Seed 003: seed 0.9, its neighbour 0.7 → relevance 0.78 → 0.39 after one hop."""
    assert neighbour_relevance(own=0.7, seed=0.9) == pytest.approx(0.78)
    assert decayed(0.78, hop=1) == pytest.approx(0.39)
    # The same numbers through the expansion: similarities normalised by the best hit (1.0).
    graph = make_graph({"seed": ["neighbour"], "top": []})
    n = ids(graph)
    seeds = [Seed(1, n["top"], 1.0), Seed(2, n["seed"], 0.9)]
    hits = expand(seeds, graph, similarity_of(graph, {"neighbour": 0.7}), depth=1)
    origin = by_chunk(hits)[100 + n["neighbour"]]
    assert origin.role == "neighbor" and origin.hop == 1
    assert origin.relevance == pytest.approx(0.78)
    assert origin.score == pytest.approx(0.39)
    assert origin.via == origin.seed == "seed.md"


def test_normalised_is_a_fraction_of_the_best_hit_clamped_to_0_1() -> None:
    assert normalised(0.4, 0.8) == pytest.approx(0.5)
    assert normalised(-0.2, 0.8) == 0.0
    assert normalised(0.9, 0.8) == 1.0
    assert normalised(0.3, 0.0) == 0.0


def test_seeds_keep_their_order_and_relevance() -> None:
    graph = make_graph({"a": [], "b": []})
    n = ids(graph)
    hits = expand([Seed(7, n["a"], 0.8), Seed(8, n["b"], 0.4)], graph, similarity_of(graph, {}))
    assert [(h.chunk_id, h.origin.role, h.origin.hop) for h in hits] == [
        (7, "seed", 0),
        (8, "seed", 0),
    ]
    assert [h.origin.relevance for h in hits] == [1.0, 0.5]


def test_below_055_is_dropped_before_decay() -> None:
    # Seed relevance 1.0: own 0.25 gives exactly 0.55 (kept), 0.24 gives 0.544 (dropped), although
    # both would score far below 0.55 after the decay.
    graph = make_graph({"seed": ["kept", "dropped"]})
    n = ids(graph)
    own = {"kept": 0.25, "dropped": 0.24}
    hits = by_chunk(expand([Seed(1, n["seed"], 1.0)], graph, similarity_of(graph, own)))
    assert 100 + n["kept"] in hits and 100 + n["dropped"] not in hits
    assert hits[100 + n["kept"]].score == pytest.approx(0.275)


def test_backlinks_are_followed_too() -> None:
    graph = make_graph({"citing": ["seed"], "seed": []})
    n = ids(graph)
    hits = by_chunk(expand([Seed(1, n["seed"], 1.0)], graph, similarity_of(graph, {"citing": 0.9})))
    assert hits[100 + n["citing"]].via == "seed.md"


def test_two_hops_carry_the_seeds_relevance_and_name_the_path() -> None:
    graph = make_graph({"seed": ["one"], "one": ["two"], "two": ["three"]})
    n = ids(graph)
    own = {"one": 0.8, "two": 0.7, "three": 0.9}
    seeds = [Seed(1, n["seed"], 0.9), Seed(9, 99, 1.0)]  # a best hit elsewhere normalises to 1.0

    def run(depth: int) -> dict[int, GraphOrigin]:
        return by_chunk(expand(seeds, graph, similarity_of(graph, own), depth=depth))

    assert set(run(0)) == {1, 9}
    assert 100 + n["two"] not in run(1)
    two = run(2)[100 + n["two"]]
    assert (two.hop, two.via, two.seed) == (2, "one.md", "seed.md")
    assert two.relevance == pytest.approx(0.6 * 0.7 + 0.4 * 0.9)
    assert two.score == pytest.approx((0.6 * 0.7 + 0.4 * 0.9) * 0.25)
    assert run(3)[100 + n["three"]].hop == 3


def test_a_dropped_note_leads_nowhere() -> None:
    graph = make_graph({"seed": ["irrelevant"], "irrelevant": ["relevant"]})
    n = ids(graph)
    own = {"irrelevant": 0.0, "relevant": 1.0}
    hits = by_chunk(expand([Seed(1, n["seed"], 1.0)], graph, similarity_of(graph, own), depth=3))
    assert set(hits) == {1}


def test_a_neighbour_reached_twice_takes_the_best_seed() -> None:
    graph = make_graph({"weak": ["shared"], "strong": ["shared"]})
    n = ids(graph)
    seeds = [Seed(1, n["weak"], 0.5), Seed(2, n["strong"], 1.0)]
    hits = by_chunk(expand(seeds, graph, similarity_of(graph, {"shared": 0.5})))
    shared = hits[100 + n["shared"]]
    assert shared.seed == "strong.md" and shared.relevance == pytest.approx(0.7)


def test_a_seed_note_is_not_its_own_neighbour() -> None:
    graph = make_graph({"a": ["b"], "b": ["a"]})
    n = ids(graph)
    hits = expand([Seed(1, n["a"], 1.0), Seed(2, n["b"], 0.9)], graph, similarity_of(graph, {}))
    assert [h.origin.role for h in hits] == ["seed", "seed"]


def test_hubs_are_capped_per_hop() -> None:
    spokes = [f"s{i}" for i in range(MAX_CANDIDATES_PER_HOP + 50)]
    graph = make_graph({"hub": spokes})
    calls: list[set[int]] = []
    own = dict.fromkeys(spokes, 0.9)
    expand([Seed(1, ids(graph)["hub"], 1.0)], graph, similarity_of(graph, own, calls))
    assert [len(call) for call in calls] == [MAX_CANDIDATES_PER_HOP]


@pytest.mark.parametrize("depth", [-1, 4])
def test_depth_outside_0_to_3_is_refused(depth: int) -> None:
    graph = make_graph({"a": []})
    with pytest.raises(ValueError, match="0 to 3"):
        expand([Seed(1, 1, 1.0)], graph, similarity_of(graph, {}), depth=depth)


# --- reserved keyword slots -----------------------------------------------------------------------


def fused_lists(keyword: list[int], graph_list: list[int]) -> list[Fused]:
    return fuse_rrf([keyword, graph_list], [0.5, 1.0])


def in_graph(entry: Fused) -> bool:
    return entry.ranks[1] is not None


def entry_id(entry: Fused) -> int:
    return entry.id


def test_two_slots_go_to_keyword_only_hits() -> None:
    # 10 graph hits outrank every keyword-only hit (0.5/61 < 1/70): without the slots, ids 50 and
    # 51 would never be shown in a top 10.
    fused = fused_lists(keyword=[50, 51, 52], graph_list=list(range(1, 11)))
    assert 50 not in [f.id for f in fused[:10]]
    top = [
        f.id for f in reserve_keyword_slots(fused, 10, in_vectors=in_graph, unit_of=entry_id)[:10]
    ]
    assert top == [1, 2, 3, 4, 5, 6, 7, 8, 50, 51]


def test_slots_fall_back_to_the_fused_order_without_keyword_only_hits() -> None:
    fused = fused_lists(keyword=[1, 2], graph_list=list(range(1, 8)))
    reordered = reserve_keyword_slots(fused, 5, in_vectors=in_graph, unit_of=entry_id)
    assert [f.id for f in reordered] == [f.id for f in fused]


def test_short_lists_reserve_at_most_half() -> None:
    fused = fused_lists(keyword=[50, 51], graph_list=[1, 2, 3])
    assert [
        f.id for f in reserve_keyword_slots(fused, 3, in_vectors=in_graph, unit_of=entry_id)[:3]
    ] == [
        1,
        2,
        50,
    ]
    assert [
        f.id for f in reserve_keyword_slots(fused, 1, in_vectors=in_graph, unit_of=entry_id)[:1]
    ] == [1]


def test_a_note_with_a_chunk_in_the_graph_list_is_not_keyword_only() -> None:
    # Chunks 50 (keyword only) and 2 belong to the same note "x": one result per note.
    note_of = {1: "a", 2: "x", 3: "b", 50: "x", 60: "k"}
    fused = fused_lists(keyword=[50, 60], graph_list=[1, 3, 2])
    top = reserve_keyword_slots(
        fused, 2, in_vectors=in_graph, unit_of=lambda entry: note_of[entry.id]
    )
    assert [note_of[f.id] for f in top[:2]] == ["a", "k"]


# --- maps of content ------------------------------------------------------------------------------


def test_mocs_linking_to_hits_are_offered_most_linked_first() -> None:
    graph = make_graph(
        {"big": ["x", "y"], "small": ["y"], "plain": ["x"], "x": [], "y": []},
        types={"big": "moc", "small": "MOC"},
    )
    mocs = related_mocs(graph, ["x.md", "y.md"])
    assert [(m.path, m.title, m.links_to) for m in mocs] == [
        ("big.md", "BIG", ["x.md", "y.md"]),
        ("small.md", "SMALL", ["y.md"]),
    ]
    assert related_mocs(graph, ["big.md", "x.md"]) == []  # a MOC among the hits is not repeated
