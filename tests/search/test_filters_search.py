"""Filters end to end (SPEC §8): a real vault of 50 notes, indexed by the real indexer.

The vault is built so that filtering after ranking would fail: the two notes under ``proj/``
mention the query once, in passing, while the 48 others are all about it, so no unfiltered ranker
has them in its top 30. A filter for them must still return both.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest

from vaultctx.api import Vault
from vaultctx.notes import NoteList
from vaultctx.search.filters import Filters

QUERY = "sqlite database locking busy timeout"
TARGETS = {"proj/Target A.md", "proj/Target B.md"}
TARGET_A = """\
---
status: active
rating: 9
due: 2026-01-15
project:
  status: blocked
  priority: 2
ms.date: 2025-05-15
tags: [garden]
---
# Target A

Tomatoes want full sun, deep watering and a stake before the first truss sets. #area/deep
Pinch the side shoots weekly and mulch against blight. See [[Garden log]] for this season.
Someone once stored the seed list in a database.
"""
TARGET_B = """\
---
status: Active
rating: 10
due: 2026-02-20
project: {status: blocked, priority: 5}
tags: [garden, herbs]
---
# Target B

Basil likes warmth and hates wet roots; sow it after the last frost. #area
Cut above a pair of leaves so it branches, and never let it flower.
The watering rota is in a database, sadly.
"""
GARDEN_LOG = """\
---
status: done
---
# Garden log

Tomatoes and basil this season: tomatoes staked, basil pinched, watering daily in the heat.
"""
OLD = dt.datetime(2024, 5, 1, 12, 0)
NEWER = dt.datetime(2025, 6, 1, 12, 0)


def misc_note(number: int) -> str:
    """Strongly about the query: these fill every unfiltered top list."""
    return (
        f"---\nstatus: done\nrating: {number % 5}\ntags: [sqlite]\n---\n# Locking {number}\n\n"
        + "SQLite database locking: the busy timeout decides how long a writer waits. " * 3
        + f"Case {number}: WAL mode, checkpoints, a busy timeout of {number * 100} ms.\n"
    )


def project_note(number: int) -> str:
    """About the query, less so than the misc notes."""
    return (
        f"---\nstatus: done\nrating: {number % 5}\n---\n# Project {number}\n\n"
        f"Meeting agenda {number}: budget, hiring, the roadmap and the office move. "
        "One item: SQLite database locking and the busy timeout.\n"
    )


def write(vault: Path, path: str, text: str, modified: dt.datetime) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    os.utime(target, (modified.timestamp(), modified.timestamp()))


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("filters")
    folder = root / "vault"
    write(folder, "proj/Target A.md", TARGET_A, OLD)
    write(folder, "proj/Target B.md", TARGET_B, OLD)
    write(folder, "misc/Garden log.md", GARDEN_LOG, NEWER)
    for number in range(20):
        write(folder, f"project/Project {number:02d}.md", project_note(number), NEWER)
    for number in range(27):
        write(folder, f"misc/Locking {number:02d}.md", misc_note(number), NEWER)
    write(folder, "misc/Locking 00.md", misc_note(0), dt.datetime.now() - dt.timedelta(hours=1))
    handle = Vault(folder, db=root / "index.db")
    report = handle.index(fast=True)
    assert report.chunks_embedded > 0, "vector search needs sqlite-vec and the static model"
    assert handle.status().files == 50
    return handle


def paths_of(vault: Vault, **options: Any) -> list[str]:
    response = vault.search(QUERY, max_tokens=100_000, notes=True, **options)
    return [result.file_path for result in response.results]


def listed(listing: NoteList) -> set[str]:
    assert listing.total == len(listing.notes)
    return {note.path for note in listing.notes}


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_a_filter_matching_two_of_fifty_notes_returns_both(vault: Vault, mode: str) -> None:
    unfiltered = paths_of(vault, mode=mode, limit=30)
    assert len(unfiltered) >= 10 and not TARGETS & set(unfiltered), "precondition: ranked low"
    for filters in (
        Filters(folder="proj"),
        Filters(tags=["garden"]),
        Filters(where=["project.status = blocked"]),
        Filters(until="2024-05-01"),
    ):
        assert set(paths_of(vault, mode=mode, limit=10, filters=filters)) == TARGETS, filters
    assert len(paths_of(vault, mode=mode, limit=1, filters=Filters(folder="proj"))) == 1


@pytest.mark.parametrize("mode", ["bm25", "vector", "hybrid"])
def test_limit_results_come_back_when_enough_notes_match(vault: Vault, mode: str) -> None:
    unfiltered = paths_of(vault, mode=mode, limit=10)
    assert not any(path.startswith("project/") for path in unfiltered), "precondition"
    filtered = paths_of(vault, mode=mode, limit=10, filters=Filters(folder="project"))
    assert len(filtered) == 10 and all(path.startswith("project/") for path in filtered)


def test_chunk_results_respect_the_filter_too(vault: Vault) -> None:
    response = vault.search(QUERY, limit=5, filters=Filters(where=["rating >= 10"]))
    assert {result.file_path for result in response.results} == {"proj/Target B.md"}


def test_graph_neighbours_outside_the_filter_are_dropped(vault: Vault) -> None:
    garden = "tomatoes basil watering"
    unfiltered = vault.search(garden, mode="vector", graph=True, limit=10)
    assert "misc/Garden log.md" in {r.file_path for r in unfiltered.results}, "precondition"
    response = vault.search(
        garden, mode="vector", graph=True, limit=10, filters=Filters(folder="proj")
    )
    assert {r.file_path for r in response.results} == TARGETS


def test_no_matching_note_is_an_empty_result_with_a_notice(vault: Vault) -> None:
    response = vault.search(QUERY, filters=Filters(folder="nowhere", where=["x = 1"]))
    assert response.results == []
    assert response.notices == ["no notes match the filters (folder nowhere, where x = 1)"]


def test_folder_matches_whole_path_segments(vault: Vault) -> None:
    assert listed(vault.list_notes(Filters(folder="proj"))) == TARGETS
    assert listed(vault.list_notes(Filters(folder="project/"), limit=50)) == {
        f"project/Project {number:02d}.md" for number in range(20)
    }
    assert listed(vault.list_notes(Filters(folder="pro"))) == set()


def test_tags_nested_inline_and_front_matter(vault: Vault) -> None:
    assert listed(vault.list_notes(Filters(tags=["#area"]))) == TARGETS, (
        "inline #area/deep and #area"
    )
    assert listed(vault.list_notes(Filters(tags=["area/deep"]))) == {"proj/Target A.md"}
    assert listed(vault.list_notes(Filters(tags=["herbs"]))) == {"proj/Target B.md"}, (
        "front matter tag"
    )
    assert listed(vault.list_notes(Filters(tags=["are"]))) == set()
    both = Filters(tags=["garden", "herbs"])
    assert set(paths_of(vault, limit=10, filters=both)) == {"proj/Target B.md"}


def test_any_tag_keeps_a_note_with_one_of_the_tags(vault: Vault) -> None:
    """Several tags: every one by default, any one with ``any_tag`` (the seed's OR), nested
    tags and case as for one tag."""
    both, either = ["herbs", "AREA/deep"], ["herbs", "AREA/deep"]
    assert listed(vault.list_notes(Filters(tags=both))) == set()
    assert listed(vault.list_notes(Filters(tags=either, any_tag=True))) == TARGETS
    assert listed(vault.list_notes(Filters(tags=["#area", "nope"], any_tag=True))) == TARGETS
    assert listed(vault.list_notes(Filters(tags=["nope", "none"], any_tag=True))) == set()
    # Before ranking, as every filter: the two targets rank low unfiltered.
    found = paths_of(vault, limit=10, filters=Filters(tags=either, any_tag=True))
    assert set(found) == TARGETS
    # OR is between the tags only: the other filters still all hold.
    narrowed = Filters(tags=either, any_tag=True, where=["rating >= 10"])
    assert listed(vault.list_notes(narrowed)) == {"proj/Target B.md"}
    assert Filters(tags=either, any_tag=True).describe() == {"tag": "herbs or AREA/deep"}
    assert Filters(tags=both).describe() == {"tag": "herbs, AREA/deep"}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("rating > 9", {"proj/Target B.md"}),
        ("rating >= 9", TARGETS),
        ("due < 2026-02-01", {"proj/Target A.md"}),
        ("due >= 2026-01-15", TARGETS),
        ("project.priority > 3", {"proj/Target B.md"}),
        ("project.status != blocked", None),
        ("ms.date = 2025-05-15", {"proj/Target A.md"}),
        ("tags = herbs", {"proj/Target B.md"}),
        ("tags = area/deep", {"proj/Target A.md"}),
        ("tags ~ HERB", {"proj/Target B.md"}),
        ("status = active", TARGETS),
        ("status ~ ACT", TARGETS),
    ],
)
def test_front_matter_conditions(vault: Vault, condition: str, expected: set[str] | None) -> None:
    found = listed(vault.list_notes(Filters(where=[condition]), limit=100))
    if expected is None:  # everything but the targets
        assert len(found) == 48 and not found & TARGETS
    else:
        assert found == expected
    ranked = paths_of(vault, limit=50, filters=Filters(where=[condition]))
    assert set(ranked) == found, "search and listing apply the same filter"


def test_conditions_and_other_filters_all_hold(vault: Vault) -> None:
    listing = vault.list_notes(Filters(folder="proj", where=["status = active", "rating < 10"]))
    assert listed(listing) == {"proj/Target A.md"}
    assert listing.filters == {"folder": "proj", "where": "status = active; rating < 10"}


def test_modification_dates_and_ages(vault: Vault) -> None:
    assert listed(vault.list_notes(Filters(until="2024-05-01"))) == TARGETS
    assert listed(vault.list_notes(Filters(since="2024-05-02"), limit=100)) == (
        listed(vault.list_notes(limit=100)) - TARGETS
    )
    assert listed(vault.list_notes(Filters(since="7d"))) == {"misc/Locking 00.md"}
    recent = Filters(since="1d")
    assert paths_of(vault, limit=10, filters=recent) == ["misc/Locking 00.md"]
