"""The graph's smaller promises, in this process: the maps of content shown beside results
(skipping hits that are no note, most-linking first), the cached graph reused until the index
changes, and the reserved keyword slots when too few keyword-only hits fill them."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.graph import (
    GraphNote,
    LinkGraph,
    LinkGraphCache,
    RelatedMoc,
    ResolvedLink,
    related_mocs,
    reserve_keyword_slots,
)
from vaultctx.vault.links import LinkResolver


def link(source: str, resolved: str) -> ResolvedLink:
    return ResolvedLink(source, resolved, None, None, None, "wikilink", 1, resolved)


def graph_of(notes: list[GraphNote], links: list[ResolvedLink]) -> LinkGraph:
    return LinkGraph(notes, links, LinkResolver([note.path for note in notes], {}))


NOTES = [
    GraphNote(1, "a.md", "A", None),
    GraphNote(2, "b.md", "B", None),
    GraphNote(3, "Small.md", "Small", "moc"),
    GraphNote(4, "Big.md", "Big", "MOC"),
    GraphNote(5, "Plain.md", "Plain", None),
]
LINKS = [
    link("Small.md", "b.md"),
    link("Big.md", "a.md"),
    link("Big.md", "b.md"),
    link("Plain.md", "a.md"),
]


def test_maps_linking_to_more_hits_come_first_and_other_notes_are_no_maps() -> None:
    graph = graph_of(NOTES, LINKS)
    assert related_mocs(graph, ["b.md", "a.md"]) == [
        RelatedMoc("Big.md", "Big", ["b.md", "a.md"]),
        RelatedMoc("Small.md", "Small", ["b.md"]),
    ]


def test_a_hit_that_is_no_note_is_skipped_not_the_end() -> None:
    graph = graph_of(NOTES, LINKS)
    found = related_mocs(graph, ["gone.md", "b.md"])
    assert [moc.path for moc in found] == ["Big.md", "Small.md"]


def test_the_cached_graph_is_reused_until_the_index_changes(tmp_path: Path) -> None:
    handle = Vault(make_vault(tmp_path / "vault", {"a.md": "# A\n"}), db=tmp_path / "index.db")
    handle.index(fast=True)
    db = open_index(tmp_path / "index.db", readonly=True)
    try:
        cache = LinkGraphCache(db)
        first = cache.get()
        assert cache.get() is first and cache.get() is first
        (handle.path / "b.md").write_text("# B\n\n[[a]]\n", encoding="utf-8")
        handle.index(fast=True)
        changed = cache.get()
        assert changed is not first and changed.note("b.md") is not None
        assert cache.get() is changed
    finally:
        db.close()


@dataclass(frozen=True)
class Entry:
    id: int
    in_vectors: bool


def test_slots_too_few_keyword_only_hits_fill_go_back_to_the_fused_order() -> None:
    """Ten slots, two reserved, one keyword-only hit (at 15): the other reserved slot goes to
    the next hit in fused order (8), and the rest follow in fused order."""
    fused = [Entry(i, i != 15) for i in range(20)]

    def unit(entry: Entry) -> Hashable:
        return entry.id

    reordered = reserve_keyword_slots(fused, 10, in_vectors=lambda e: e.in_vectors, unit_of=unit)
    expected = [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 9, 10, 11, 12, 13, 14, 16, 17, 18, 19]
    assert [e.id for e in reordered] == expected


def test_a_vector_of_zeros_has_no_similarity_and_a_unit_vector_its_cosine() -> None:
    """Stored int8 vectors can be all zeros (an empty chunk): similarity 0, not NaN; a norm of
    exactly 1 still divides."""
    import numpy as np

    from vaultctx.search.graph import _cosine

    matrix = np.array([[1, 0], [0, 0], [3, 4]], dtype=np.float32)
    cosines = _cosine(matrix, np.array([1, 0], dtype=np.float32))
    assert cosines.tolist() == pytest.approx([1.0, 0.0, 0.6])


def test_outlinks_and_backlinks_are_each_neighbour_once_in_first_link_order() -> None:
    notes = [GraphNote(i, f"{name}.md", name, None) for i, name in enumerate("abcd", start=1)]
    links = [link("a.md", "c.md"), link("a.md", "b.md"), link("a.md", "c.md"), link("a.md", "a.md")]
    links += [link("d.md", "b.md"), link("b.md", "zz.md")]
    graph = graph_of(notes, links)
    assert graph.outlinks(1) == [3, 2]
    assert graph.backlinks(2) == [1, 4]
    assert graph.outlinks(3) == [] and graph.backlinks(1) == []
