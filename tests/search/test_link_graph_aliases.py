"""Aliases as the link graph reads them from the index (search/graph.py ``load_link_graph``): a
JSON list of names, and anything else in that column (a damaged or hand-edited index) read as no
alias rather than as the letters of a string or the keys of an object."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.graph import load_link_graph

NOTES = {"Plan.md": "# Plan\n\nThe plan.\n", "a.md": "# A\n\nSee [[Plan]].\n"}


def graph_with_aliases(tmp_path: Path, stored: str) -> Vault:
    vault = Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")
    vault.index(fast=True)
    db = open_index(tmp_path / "index.db")
    try:
        db.execute("UPDATE files SET aliases = ? WHERE path = 'Plan.md'", (stored,))
    finally:
        db.close()
    return vault


def found(vault: Vault, name: str) -> str | None:
    db = open_index(vault.config.db, readonly=True)
    try:
        note = load_link_graph(db).find(name)
    finally:
        db.close()
    return None if note is None else note.path


def test_a_list_of_aliases_names_the_note(tmp_path: Path) -> None:
    vault = graph_with_aliases(tmp_path, '["Roadmap", 2027]')
    assert found(vault, "Roadmap") == "Plan.md"
    assert found(vault, "2027") == "Plan.md"


@pytest.mark.parametrize("stored", ['"Roadmap"', '{"Roadmap": 1}', "7", "not json", ""])
def test_aliases_stored_as_anything_but_a_list_are_none(tmp_path: Path, stored: str) -> None:
    vault = graph_with_aliases(tmp_path, stored)
    assert found(vault, "Plan") == "Plan.md"
    for name in ("Roadmap", "R", "7"):
        assert found(vault, name) is None
