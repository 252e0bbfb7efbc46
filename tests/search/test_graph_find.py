"""How ``links`` finds the note it is asked about (search/graph.py), in this process: by its
exact vault path first, else as a link from the vault root would find it; an unknown note's
error says how to name one."""

from __future__ import annotations

import pytest

from vaultctx.search.graph import GraphNote, LinkGraph, UnknownNoteError, note_links
from vaultctx.vault.links import LinkResolver

NOTES = [
    GraphNote(1, " Lead.md", "Lead", None),
    GraphNote(2, "a/Note.md", "Note", None),
    GraphNote(3, "Other.md", "Other", None),
]


@pytest.fixture
def graph() -> LinkGraph:
    resolver = LinkResolver([note.path for note in NOTES], {"elsewhere": "Other.md"})
    return LinkGraph(NOTES, [], resolver)


def test_a_vault_path_is_found_as_written(graph: LinkGraph) -> None:
    """A file name with a leading space is a path no link resolves (links are stripped)."""
    assert graph.find(" Lead.md") == NOTES[0]
    assert graph.find("a/Note.md") == NOTES[1]


@pytest.mark.parametrize(("name", "path"), [("Note", "a/Note.md"), ("elsewhere", "Other.md")])
def test_a_name_or_alias_is_found_as_a_link_from_the_root(
    graph: LinkGraph, name: str, path: str
) -> None:
    found = graph.find(name)
    assert found is not None and found.path == path


@pytest.mark.parametrize("name", ["Nowhere", "", "XXXX"])
def test_an_unknown_note_says_how_to_name_one(graph: LinkGraph, name: str) -> None:
    assert graph.find(name) is None
    with pytest.raises(UnknownNoteError) as refused:
        note_links(graph, name)
    assert refused.value.message == f"no note {name!r} in the index"
    assert refused.value.suggestion == (
        "give its vault-relative path (e.g. folder/Note.md), its name or an alias, or run "
        "`vaultctx index` if it is new"
    )
