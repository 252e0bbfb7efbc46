"""How a filter spells what was asked for (search/filters.py): a tag loses only its leading ``#``
and trailing ``/`` (never letters that happen to be at its ends), a folder of ``.`` or ``/`` is
the whole vault."""

from __future__ import annotations

import pytest

from vaultctx.search.filters import Filters


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        ("#Xmas", "Xmas"),
        ("##X#", "X#"),
        (" inboX/ ", "inboX"),
        ("a/b//", "a/b"),
        ("#/X/", "/X"),
    ],
)
def test_a_tag_loses_only_its_hash_and_trailing_slash(written: str, kept: str) -> None:
    assert Filters(tags=[written]).tags == (kept,)


@pytest.mark.parametrize("folder", [".", "/", " ", " . "])
def test_the_vault_root_as_a_folder_is_no_folder_filter(folder: str) -> None:
    assert Filters(folder=folder).folder is None
    assert Filters(folder=folder).is_empty


def test_a_filter_describes_each_active_part_by_its_name() -> None:
    built = Filters(
        folder="work/",
        tags=["#ops", "q1"],
        note_type=" meeting ",
        since="2024-01-01",
        until="2024-02-01",
        where=["status = done", "rating > 3"],
    )
    assert built.describe() == {
        "folder": "work",
        "tag": "ops, q1",
        "type": "meeting",
        "modified_since": "2024-01-01",
        "modified_until": "2024-02-01",
        "where": "status = done; rating > 3",
    }
    assert Filters(tags=["ops", "q1"], any_tag=True).describe() == {"tag": "ops or q1"}
    assert Filters(tags=["ops"], any_tag=True).describe() == {"tag": "ops"}
    assert Filters().describe() == {} and Filters().is_empty
    assert not Filters(note_type="x").is_empty
