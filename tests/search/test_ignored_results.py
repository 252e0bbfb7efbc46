"""What a search, a note's links and the broken-link list leave out once a note is ignored
(search/ignored_results.py), in this process and each filter on its own.

A note can sit in the index after the user ignored it (a rule added since the last run): its
passages, the graph paths through it, the maps of content naming it, its links and the links
into it must all stay out. ``tests/security/test_ignored_stays_private.py`` holds the promise
end to end through the agent and MCP; these pin each filter so that none can be dropped alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.graph import GraphOrigin, NoteLinks, RelatedMoc, ResolvedLink
from vaultctx.search.ignored_results import (
    broken_without_ignored,
    ignored_now,
    links_without_ignored,
    search_without_ignored,
)
from vaultctx.search.retriever import SearchResponse, SearchResult

PRIVATE = "private/Diary.md"


def ignored(path: str) -> bool:
    return path.startswith("private/")


def result(path: str, via: str | None = None, seed: str | None = None) -> SearchResult:
    origin = (
        None if via is None and seed is None else GraphOrigin("neighbor", 1, 0.8, 0.4, via, seed)
    )
    return SearchResult(path, "T", "", f"[[{path}]]", "text", 1.0, 1, None, 7, origin)


def response(results: list[SearchResult], mocs: list[RelatedMoc] | None = None) -> SearchResponse:
    return SearchResponse("q", "hybrid", results, 1.0, ["a notice"], mocs or [])


def test_a_search_without_anything_ignored_is_returned_as_it_is() -> None:
    given = response([result("a.md"), result("b.md", via="a.md", seed="a.md")])
    given.related_mocs.append(RelatedMoc("MOC.md", "MOC", ["a.md", "b.md"]))
    assert search_without_ignored(given, ignored) is given


@pytest.mark.parametrize(
    "hidden",
    [
        result(PRIVATE),
        result(PRIVATE, via="a.md", seed="a.md"),
        result("b.md", via=PRIVATE, seed="a.md"),
        result("b.md", via="a.md", seed=PRIVATE),
        result("b.md", seed=PRIVATE),
    ],
    ids=[
        "the note",
        "the note, from the graph",
        "reached through it",
        "reached from it",
        "seeded by it",
    ],
)
def test_a_result_naming_an_ignored_note_anywhere_is_left_out(hidden: SearchResult) -> None:
    kept = [result("a.md"), result("c.md", via="a.md", seed="a.md")]
    filtered = search_without_ignored(response([kept[0], hidden, kept[1]]), ignored)
    assert filtered.results == kept
    assert (filtered.query, filtered.mode, filtered.notices) == ("q", "hybrid", ["a notice"])


def test_maps_of_content_leave_out_ignored_notes_and_ignored_maps() -> None:
    mocs = [
        RelatedMoc("MOC.md", "MOC", ["a.md", PRIVATE, "b.md"]),
        RelatedMoc("private/Map.md", "Map", ["a.md"]),
        RelatedMoc("Other.md", "Other", ["c.md"]),
    ]
    filtered = search_without_ignored(response([result("a.md")], mocs), ignored)
    assert filtered.related_mocs == [
        RelatedMoc("MOC.md", "MOC", ["a.md", "b.md"]),
        RelatedMoc("Other.md", "Other", ["c.md"]),
    ]
    assert filtered.results == [result("a.md")]


def link(source: str, resolved: str | None, line: int = 1) -> ResolvedLink:
    return ResolvedLink(source, "x", None, None, None, "wikilink", line, resolved)


def test_a_notes_links_leave_out_links_from_or_into_ignored_notes() -> None:
    links = NoteLinks(
        "a.md",
        "A",
        outlinks=[link("a.md", "b.md"), link("a.md", PRIVATE, 2), link("a.md", None, 3)],
        backlinks=[link("b.md", "a.md"), link(PRIVATE, "a.md", 4), link("c.md", "a.md", 5)],
    )
    filtered = links_without_ignored(links, ignored)
    assert (filtered.path, filtered.title) == ("a.md", "A")
    assert filtered.outlinks == [link("a.md", "b.md"), link("a.md", None, 3)]
    assert filtered.backlinks == [link("b.md", "a.md"), link("c.md", "a.md", 5)]


def test_broken_links_from_ignored_notes_are_left_out() -> None:
    broken = [link("a.md", None), link(PRIVATE, None, 2), link("b.md", None, 3)]
    assert broken_without_ignored(broken, ignored) == [link("a.md", None), link("b.md", None, 3)]


def test_the_rules_are_read_as_they_are_now(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    make_vault(vault, {"a.md": "# A\n", "private/Diary.md": "# Diary\n"})
    assert not ignored_now(vault)(PRIVATE)
    # A rule ending in "/" names folders only: a note of that name stays.
    (vault / ".indexignore").write_text("private/\na.md/\n", encoding="utf-8")
    now = ignored_now(vault)
    assert now(PRIVATE) and not now("a.md")
    assert ignored_now(vault, ["a.md"])("a.md")


def test_vault_links_leave_out_a_note_ignored_after_it_was_indexed(tmp_path: Path) -> None:
    notes = {
        "a.md": "# A\n\nSee [[Diary]] and [[B]].\n",
        "B.md": "# B\n\nBack to [[A]].\n",
        PRIVATE: "# Diary\n\nAbout [[A]].\n",
    }
    handle = Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "index.db")
    handle.index(fast=True)
    before = handle.links("a.md")
    assert [x.resolved for x in before.outlinks] == [PRIVATE, "B.md"]
    assert sorted(x.source for x in before.backlinks) == ["B.md", PRIVATE]
    (handle.path / ".indexignore").write_text("private/\n", encoding="utf-8")
    after = handle.links("a.md")
    assert [x.resolved for x in after.outlinks] == ["B.md"]
    assert [x.source for x in after.backlinks] == ["B.md"]
