"""``Vault.links`` and ``Vault.broken_links`` in this process (the CLI's tests run them in a
subprocess): each link as written, with its line, heading and alias, and where it leads."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.graph import UnknownNoteError

NOTES = {
    "a.md": "# A\n\nSee [[B]] and [[Missing]].\nAlso [[b|bee]] and [[B#Part]].\n\n[[Gone]]\n",
    "folder/B.md": "---\naliases: [Bee]\n---\n# B\n\nBack to [[A#Intro]].\n\n## Part\n",
    "c.md": "# C\n\n[[#Local]] and [[Nowhere]] and [[Bee]]\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("links")
    handle = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    handle.index(fast=True)
    return handle


def link(
    source: str, target: str, line: int, resolved: str | None, **parts: str
) -> dict[str, object]:
    return {
        "source": source,
        "target": target,
        "heading": parts.get("heading"),
        "block": None,
        "alias": parts.get("alias"),
        "kind": "wikilink",
        "line": line,
        "resolved": resolved,
    }


B = "folder/B.md"


def test_a_note_lists_what_it_links_to_and_what_links_to_it(vault: Vault) -> None:
    assert vault.links("A").as_dict() == {
        "path": "a.md",
        "title": "A",
        "outlinks": [
            link("a.md", "B", 3, B),
            link("a.md", "Missing", 3, None),
            link("a.md", "b", 4, B, alias="bee"),
            link("a.md", "B", 4, B, heading="Part"),
            link("a.md", "Gone", 6, None),
        ],
        "backlinks": [link(B, "A", 6, "a.md", heading="Intro")],
    }


@pytest.mark.parametrize("name", ["folder/B.md", "B", "Bee", "bee", "folder/B"])
def test_a_note_is_found_by_path_name_or_alias(vault: Vault, name: str) -> None:
    found = vault.links(name)
    assert (found.path, found.title) == (B, "B")
    assert [(x.source, x.line) for x in found.backlinks] == [
        ("a.md", 3),
        ("a.md", 4),
        ("a.md", 4),
        ("c.md", 3),
    ]
    assert found.outlinks == [found.outlinks[0]] and found.outlinks[0].resolved == "a.md"


def test_a_link_to_a_heading_of_the_same_note_is_not_a_backlink(vault: Vault) -> None:
    found = vault.links("c.md")
    assert found.outlinks[0].resolved == "c.md" and found.outlinks[0].heading == "Local"
    assert found.backlinks == []


def test_an_unknown_note_says_how_to_name_one(vault: Vault) -> None:
    with pytest.raises(UnknownNoteError) as refused:
        vault.links("Nowhere")
    assert refused.value.message == "no note 'Nowhere' in the index"
    assert "vault-relative path" in refused.value.suggestion


def test_broken_links_by_note_then_line(vault: Vault) -> None:
    assert [(x.source, x.target, x.line) for x in vault.broken_links()] == [
        ("a.md", "Missing", 3),
        ("a.md", "Gone", 6),
        ("c.md", "Nowhere", 3),
    ]
