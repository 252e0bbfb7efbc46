"""The tools that change the vault, through ``Vault``'s write methods: each one's result, its
failures, the bytes it leaves on disk, and the ledger record it makes under the tool's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.tool_support import call, snapshot, vault_copy
from vaultctx.api import Vault

PLAN = "10-projects/Plan.md"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return vault_copy(tmp_path)


def note(vault: Vault, path: str) -> str:
    return (vault.path / path).read_bytes().decode("utf-8")


def labels(vault: Vault) -> list[str]:
    return [record.label for record in vault.ledger()][::-1]


def test_create_note_creates_folders_and_records_the_change(vault: Vault) -> None:
    result = call(vault, "create_note", {"path": "new/deep/Idea.md", "content": "# Idea\n"})
    assert result == "Note created: new/deep/Idea.md"
    assert note(vault, "new/deep/Idea.md") == "# Idea\n"
    assert labels(vault) == ["create_note new/deep/Idea.md"]


def test_create_note_refuses_an_existing_path(vault: Vault) -> None:
    before = snapshot(vault.path)
    result = call(vault, "create_note", {"path": "daily/2024-03-12.md", "content": "x"})
    assert result.startswith(
        "Tool execution error: create_note: File already exists: daily/2024-03-12.md"
    )
    assert snapshot(vault.path) == before and vault.ledger() == []


def test_edit_note_replaces_every_occurrence(vault: Vault) -> None:
    call(vault, "create_note", {"path": PLAN, "content": "a cat, a cat\nand a dog\n"})
    result = call(vault, "edit_note", {"path": PLAN, "find": "cat", "replace": "$1 \\g<0>"})
    assert result == f"Note partially updated: {PLAN} (2 replaced)"
    assert note(vault, PLAN) == "a $1 \\g<0>, a $1 \\g<0>\nand a dog\n"


def test_edit_note_with_content_replaces_the_note(vault: Vault) -> None:
    call(vault, "create_note", {"path": PLAN, "content": "old\n"})
    assert call(vault, "edit_note", {"path": PLAN, "content": "new\n"}) == f"Note updated: {PLAN}"
    assert note(vault, PLAN) == "new\n"
    assert labels(vault) == [f"create_note {PLAN}", f"edit_note {PLAN}"]


def test_edit_note_matches_an_lf_find_in_a_crlf_note(vault: Vault) -> None:
    (vault.path / PLAN).write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = call(vault, "edit_note", {"path": PLAN, "find": "one\ntwo", "replace": "1\n2"})
    assert result == f"Note partially updated: {PLAN} (1 replaced)"
    assert (vault.path / PLAN).read_bytes() == b"1\r\n2\r\nthree\r\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"find": "a"},
            "Tool execution error: `find` and `replace` must be given together. "
            "To replace the whole note, use `content` alone.",
        ),
        (
            {"replace": "a", "content": "whole"},
            "Tool execution error: `find` and `replace` must be given together. "
            "To replace the whole note, use `content` alone.",
        ),
        ({"find": "", "replace": "b"}, "Tool execution error: `find` is empty"),
        ({}, "Tool execution error: Either `content` or `find`/`replace` is required."),
        (
            {"find": "not in the note at all, not anywhere in it, not even close", "replace": "x"},
            'Tool execution error: edit_note: Could not find the text to replace: "not in the '
            'note at all, not anywhere in it, not ev..."\nNo changes were made.',
        ),
    ],
)
def test_edit_note_misuse_changes_nothing(
    vault: Vault, args: dict[str, str], expected: str
) -> None:
    call(vault, "create_note", {"path": PLAN, "content": "text\n"})
    before = snapshot(vault.path)
    assert call(vault, "edit_note", {"path": PLAN, **args}).startswith(expected)
    assert snapshot(vault.path) == before and len(vault.ledger()) == 1


def test_edit_note_of_a_missing_note(vault: Vault) -> None:
    result = call(vault, "edit_note", {"path": "nope.md", "content": "x"})
    assert result.startswith("Tool execution error: edit_note: File not found: nope.md")


def test_append_to_note(vault: Vault) -> None:
    call(vault, "create_note", {"path": PLAN, "content": "first"})
    assert call(vault, "append_to_note", {"path": PLAN, "content": "second"}) == (
        f"Content appended: {PLAN}"
    )
    assert note(vault, PLAN) == "first\nsecond"
    assert call(vault, "append_to_note", {"path": "nope.md", "content": "x"}).startswith(
        "Tool execution error: append_to_note: File not found: nope.md"
    )


def test_save_template_creates_then_overwrites(vault: Vault) -> None:
    assert call(vault, "save_template", {"name": "Meeting", "content": "# {{title}}\n"}) == (
        "Template saved: Templates/Meeting.md"
    )
    assert call(vault, "save_template", {"name": "Meeting.md", "content": "## {{title}}\n"}) == (
        "Template updated: Templates/Meeting.md"
    )
    assert note(vault, "Templates/Meeting.md") == "## {{title}}\n"
    assert labels(vault) == ["save_template Templates/Meeting.md"] * 2
    assert call(vault, "save_template", {"name": "a/b", "content": "x"}).startswith(
        "Tool execution error: save_template: a template name is a file name without a folder"
    )


def test_save_template_into_an_excluded_folder_is_refused(vault: Vault) -> None:
    result = call(
        vault, "save_template", {"name": "X", "content": "x"}, template_folder="templates"
    )
    assert result.startswith("Tool execution error: save_template: the template folder templates/")


def test_apply_template_replaces_literally_and_names_leftovers(vault: Vault) -> None:
    template = "# {{title}}\nBy {{author}} on {{date}} about {{title}}\n"
    call(vault, "save_template", {"name": "Meeting", "content": template})
    result = call(
        vault,
        "apply_template",
        {
            "template_name": "Meeting",
            "output_path": "meetings/Kickoff.md",
            "variables": {"title": "Kick $1 off \\1 .*", "author": "Kim"},
        },
    )
    assert result == (
        "Note created: meetings/Kickoff.md\n⚠️ Unsubstituted variables remain: {{date}}"
    )
    assert note(vault, "meetings/Kickoff.md") == (
        "# Kick $1 off \\1 .*\nBy Kim on {{date}} about Kick $1 off \\1 .*\n"
    )
    again = call(
        vault, "apply_template", {"template_name": "Meeting", "output_path": "meetings/Kickoff.md"}
    )
    assert again.startswith("Tool execution error: apply_template: File already exists")


def test_apply_template_failures(vault: Vault) -> None:
    missing = call(vault, "apply_template", {"template_name": "Nope", "output_path": "x.md"})
    assert missing == (
        "Tool execution error: apply_template: template not found: Nope (Templates/Nope.md); "
        "use list_templates to see the saved templates"
    )
    call(vault, "save_template", {"name": "T", "content": "{{a}}"})
    bad = call(
        vault, "apply_template", {"template_name": "T", "output_path": "x.md", "variables": [1]}
    )
    assert bad.startswith("Tool execution error: apply_template: `variables` must be an object")
    ok = call(
        vault,
        "apply_template",
        {"template_name": "T", "output_path": "x.md", "variables": {"a": 3}},
    )
    assert ok == "Note created: x.md" and note(vault, "x.md") == "3"


def test_move_file_rewrites_links_in_other_notes(vault: Vault) -> None:
    source = "30-resources/rag/Reciprocal rank fusion.md"
    before_moc = note(vault, "30-resources/MOC - Engineering.md")
    result = call(
        vault,
        "move_file",
        {"source_path": source, "destination_path": "30-resources/search/RRF.md"},
    )
    assert result.startswith(f"File moved: {source} → 30-resources/search/RRF.md\nLinks updated in")
    assert not (vault.path / source).exists()
    assert note(vault, "30-resources/MOC - Engineering.md") != before_moc
    assert "[[RRF" in note(vault, "30-resources/MOC - Engineering.md")
    assert labels(vault) == [f"move_file {source} → 30-resources/search/RRF.md"]


def test_move_a_folder(vault: Vault) -> None:
    result = call(vault, "move_file", {"source_path": "daily", "destination_path": "journal"})
    assert result.startswith("Folder moved: daily → journal")
    assert (vault.path / "journal" / "2024-03-12.md").is_file()


def test_move_onto_an_existing_file_changes_nothing(vault: Vault) -> None:
    before = snapshot(vault.path)
    result = call(
        vault,
        "move_file",
        {"source_path": "daily/2024-03-12.md", "destination_path": "daily/2024-03-13.md"},
    )
    assert result.startswith("Tool execution error: move_file: ")
    assert "already exists" in result
    assert snapshot(vault.path) == before and vault.ledger() == []


def test_move_of_a_missing_source(vault: Vault) -> None:
    result = call(vault, "move_file", {"source_path": "nope.md", "destination_path": "x.md"})
    assert result.startswith("Tool execution error: move_file: ")
    assert "not found" in result


def test_delete_file_moves_it_to_the_trash(vault: Vault) -> None:
    data = (vault.path / "daily/2024-03-12.md").read_bytes()
    assert call(vault, "delete_file", {"path": "daily/2024-03-12.md"}) == (
        "File deleted: daily/2024-03-12.md (moved to the vault's .trash/ folder)"
    )
    assert not (vault.path / "daily/2024-03-12.md").exists()
    assert data in [p.read_bytes() for p in (vault.path / ".trash").rglob("*") if p.is_file()]
    assert call(vault, "delete_file", {"path": "20-areas/home-lab"}).startswith(
        "Folder deleted: 20-areas/home-lab"
    )
    assert call(vault, "delete_file", {"path": "nope.md"}).startswith(
        "Tool execution error: delete_file: "
    )


def test_writes_are_searchable_at_once_in_an_indexed_vault(tmp_path: Path) -> None:
    indexed = vault_copy(tmp_path, indexed=True)
    call(indexed, "create_note", {"path": "new/Zebra.md", "content": "# Zebra\nquokkas and zebras"})
    assert "new/Zebra.md" in call(indexed, "search_vault", {"query": "quokkas"})
