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
