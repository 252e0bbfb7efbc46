"""The context block as a model receives it (search/context.py), word for word and at the edges
of its budget, in this process: what ``vaultctx context``, MCP ``get_context`` and the hooks
paste into a prompt."""

from __future__ import annotations

import pytest

from vaultctx.search.budget import estimate_tokens
from vaultctx.search.context import context_block, fitted_block, passage_budget
from vaultctx.search.graph import RelatedMoc
from vaultctx.search.retriever import SearchResult


def result(path: str, title: str, text: str, citation: str | None = None) -> SearchResult:
    return SearchResult(path, title, "", citation or f"[[{title}]]", text, 0.5, 1, 2, 3)


A = result("notes/a.md", "A", "Alpha facts.")
B = result("notes/b.md", "B", "Beta facts.")
A2 = result("notes/a.md", "A", "More alpha.")
MOC = RelatedMoc("Maps/Home.md", "Home", ["notes/b.md", "other.md"])
UNRELATED = RelatedMoc("Maps/Else.md", "Else", ["other.md"])
MOC2 = RelatedMoc("Maps/Work.md", "Work", ["notes/a.md"])


def test_facts_come_first_then_their_sources_then_the_maps_linking_to_them() -> None:
    block = context_block("topic x", [A, B, A2], [MOC, UNRELATED, MOC2])
    assert block.markdown == (
        "## Context from my notes: topic x\n\n"
        "### A ([[A]])\nAlpha facts.\n\n"
        "### B ([[B]])\nBeta facts.\n\n"
        "### A ([[A]])\nMore alpha.\n\n"
        "Sources:\n- [[A]]\n- [[B]]\n\n"
        "Maps of content linking to these notes:\n- Maps/Home.md (Home)\n"
        "- Maps/Work.md (Work)\n"
    )
    assert block.sources == ["[[A]]", "[[B]]"]
    assert block.related_mocs == [MOC, MOC2]
    assert block.as_dict() == {
        "topic": "topic x",
        "markdown": block.markdown,
        "sources": ["[[A]]", "[[B]]"],
        "results": [r.as_dict() for r in (A, B, A2)],
        "related_mocs": [
            {"path": "Maps/Home.md", "title": "Home", "links_to": MOC.links_to},
            {"path": "Maps/Work.md", "title": "Work", "links_to": MOC2.links_to},
        ],
    }


def test_nothing_found_says_so_and_lists_no_map() -> None:
    block = context_block("topic y", [], [MOC])
    assert block.markdown == (
        "## Context from my notes: topic y\n\n(nothing in the notes matches this topic)\n"
    )
    assert (block.sources, block.results, block.related_mocs) == ([], [], [])
    assert block.as_dict()["related_mocs"] == []


@pytest.mark.parametrize(
    ("max_tokens", "limit", "expected"),
    [(1000, 10, 825), (1000, 1, 960), (200, 10, 100), (201, 10, 100), (400, 5, 300), (0, 3, 0)],
)
def test_the_passages_get_the_budget_less_headings_but_at_least_half(
    max_tokens: int, limit: int, expected: int
) -> None:
    assert passage_budget(max_tokens, limit) == expected
    assert isinstance(passage_budget(max_tokens, limit), int)


def test_a_block_that_fits_exactly_keeps_every_passage() -> None:
    whole = context_block("t", [A, B])
    fitted = fitted_block("t", [A, B], [], estimate_tokens(whole.markdown))
    assert fitted == whole


def test_the_last_passages_are_dropped_until_the_block_fits() -> None:
    one = context_block("t", [A], [MOC])
    fitted = fitted_block("t", [A, B], [MOC], estimate_tokens(one.markdown))
    assert fitted == one
    assert fitted.topic == "t" and fitted.markdown.startswith("## Context from my notes: t\n")


def test_a_budget_too_small_for_anything_gives_the_empty_block() -> None:
    assert fitted_block("t", [A, B], [MOC], 1) == context_block("t", [], [MOC])
