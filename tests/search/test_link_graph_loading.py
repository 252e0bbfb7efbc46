"""The link graph as loaded from a real index (search/graph.py ``load_link_graph``), in this
process: each note's type (what makes a map of content), links to a block, and links to an
attachment that only the disk knows."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.graph import LinkGraph, load_link_graph
from vaultctx.vault.links import vault_file_paths

NOTES = {
    "Map.md": "---\ntype: moc\naliases: [Home]\n---\n# Map\n\n[[a]]\n",
    "a.md": "# A\n\nSee [[B#^blk1]], ![[img.png]] and [[Home]].\n",
    "B.md": "# B\n\nA paragraph. ^blk1\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("graph")
    make_vault(root / "vault", NOTES)
    (root / "vault" / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    handle = Vault(root / "vault", db=root / "index.db")
    handle.index(fast=True)
    return handle


def loaded(vault: Vault) -> LinkGraph:
    db = open_index(vault.config.db, readonly=True)
    try:
        return load_link_graph(db, vault_file_paths(vault.path))
    finally:
        db.close()


def test_a_notes_type_is_loaded_so_a_map_of_content_is_one(vault: Vault) -> None:
    graph = loaded(vault)
    moc, plain = graph.note("Map.md"), graph.note("a.md")
    assert moc is not None and plain is not None
    assert (moc.type, moc.is_moc) == ("moc", True)
    assert (plain.type, plain.is_moc) == (None, False)


def test_links_keep_their_block_alias_and_where_they_lead(vault: Vault) -> None:
    outlinks = [
        (x.target, x.heading, x.block, x.resolved, x.line) for x in vault.links("a.md").outlinks
    ]
    assert outlinks == [
        ("B", None, "blk1", "B.md", 3),
        ("img.png", None, None, "img.png", 3),
        ("Home", None, None, "Map.md", 3),
    ]


def test_an_attachment_on_disk_is_a_link_target_not_a_broken_link(vault: Vault) -> None:
    assert all(link.target != "img.png" for link in vault.broken_links())
    graph = loaded(vault)
    assert graph.note("img.png") is None, "an attachment is no note"
