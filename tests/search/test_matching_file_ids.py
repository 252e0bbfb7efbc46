"""``matching_file_ids`` (search/filters.py) on a real index: each part of a filter narrows the
notes on its own (folder, tags, type, each date bound, each condition), and together they all
hold. The broader tests reach it through a search or a listing, where a later step may narrow
again; here nothing does."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.search.filters import Filters, matching_file_ids

NOTES = {
    "work/Meeting.md": "---\ntype: meeting\nstatus: done\nrating: 3\ntags: [ops]\n---\n# M\n\nx\n",
    "work/Plan.md": "---\ntype: plan\nstatus: active\nrating: 5\ntags: [ops, q1]\n---\n# P\n\nx\n",
    "home/Recipe.md": "---\ntype: Meeting\nstatus: active\n---\n# R\n\nx\n",
    "home/Diary.md": "# Diary\n\nno front matter #q1\n",
}
OLD, NEW = dt.datetime(2024, 1, 10, 12), dt.datetime(2024, 3, 10, 12)


@pytest.fixture(scope="module")
def index(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[IndexDatabase, dict[str, int]]]:
    root = tmp_path_factory.mktemp("matching")
    folder = make_vault(root / "vault", NOTES)
    for path in NOTES:
        when = OLD if path.startswith("work/") else NEW
        os.utime(folder / path, (when.timestamp(), when.timestamp()))
    Vault(folder, db=root / "index.db").index(fast=True)
    db = open_index(root / "index.db", readonly=True)
    ids = {str(path): int(file_id) for file_id, path in db.execute("SELECT id, path FROM files")}
    try:
        yield db, ids
    finally:
        db.close()


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(), set(NOTES)),
        (Filters(folder="work"), {"work/Meeting.md", "work/Plan.md"}),
        (Filters(tags=["q1"]), {"work/Plan.md", "home/Diary.md"}),
        (Filters(tags=["ops", "q1"]), {"work/Plan.md"}),
        (
            Filters(tags=["ops", "q1"], any_tag=True),
            {"work/Plan.md", "work/Meeting.md", "home/Diary.md"},
        ),
        (Filters(note_type="meeting"), {"work/Meeting.md", "home/Recipe.md"}),
        (Filters(note_type="plan"), {"work/Plan.md"}),
        (Filters(since="2024-02-01"), {"home/Recipe.md", "home/Diary.md"}),
        (Filters(until="2024-02-01"), {"work/Meeting.md", "work/Plan.md"}),
        (Filters(where=["status = active"]), {"work/Plan.md", "home/Recipe.md"}),
        (Filters(where=["status = active", "rating > 4"]), {"work/Plan.md"}),
        (Filters(where=["status != active"]), {"work/Meeting.md", "home/Diary.md"}),
        (Filters(folder="home", note_type="meeting", where=["status ~ act"]), {"home/Recipe.md"}),
        (Filters(folder="work", note_type="meeting", since="2024-02-01"), set()),
    ],
    ids=lambda value: repr(sorted(value) if isinstance(value, set) else value),
)
def test_each_part_of_a_filter_narrows_the_notes(
    index: tuple[IndexDatabase, dict[str, int]], filters: Filters, expected: set[str]
) -> None:
    db, ids = index
    assert sorted(matching_file_ids(db, filters)) == sorted(ids[path] for path in expected)
