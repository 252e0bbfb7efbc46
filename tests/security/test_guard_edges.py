"""Small guards whose weakening no other test noticed (issue 22, mutation audit):

- the trash is never written by a change, even in a vault whose ``.indexignore`` brings
  ``.trash/`` back into the index (the default exclusion is not what protects it);
- the tool contract's quick check refuses a ``..`` step written with backslashes, as a model
  on Windows habits writes it, before any tool runs;
- a model cannot open or close a generated block with a marker spelled in capitals or with
  other spacing: every spelling an HTML comment reader could take for one is neutralised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agent.tool_support import call, snapshot, vault_copy
from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, isolate_data_dir, tree
from vaultctx.api import Vault
from vaultctx.brain.markers import ZERO_WIDTH, neutralise, read_block, upsert_block
from vaultctx.vault.scanner import is_served_path, load_ignore_rules
from vaultctx.vault.writes import NoteChangeError

# --- the trash ------------------------------------------------------------------------------------


@pytest.fixture
def trash_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    """A vault that indexes its own trash: ``!`` lines undo the default ``.trash/`` exclusion."""
    isolate_data_dir(tmp_path / "data", monkeypatch)
    root = make_vault(
        tmp_path / "vault",
        {
            "notes/Note.md": "# Note\nkeep me\n",
            ".trash/old.md": "# Old\ntrashed by Obsidian\n",
            ".indexignore": "!.trash/\n!.trash/**\n",
        },
    )
    rules, _ = load_ignore_rules(root)
    assert is_served_path(".trash/old.md", rules), "precondition: the trash is indexed"
    assert is_served_path(".trash/new.md", rules), "precondition: the trash is indexed"
    return Vault(root, db=tmp_path / "index.db")


@pytest.mark.parametrize("target", [".trash/old.md", ".trash/new.md", ".Trash/new.md", ".trash"])
def test_no_change_writes_into_the_trash_even_when_it_is_indexed(
    trash_served: Vault, target: str
) -> None:
    vault = trash_served
    before = tree(vault.path)
    operations: list[Callable[[], object]] = [
        lambda: vault.create_note(target, "pwned", change=AGENT),
        lambda: vault.replace_note(target, "pwned", change=AGENT),
        lambda: vault.append_to_note(target, "pwned", change=AGENT),
        lambda: vault.edit_note(target, "trashed", "pwned", change=AGENT),
        lambda: vault.move_path("notes/Note.md", target, change=AGENT),
        lambda: vault.move_path(target, "notes/back.md", change=AGENT),
    ]
    for operation in operations:
        with pytest.raises(NoteChangeError, match="holds Obsidian's, git's or the trash's own"):
            operation()
    assert tree(vault.path) == before
    assert vault.ledger() == []


# --- the tool contract's quick check --------------------------------------------------------------

BACKSLASH_STEPS = [
    "..\\victim.md",
    "..\\outside\\victim.md",
    "daily\\..\\..\\outside\\victim.md",
    "daily/..\\..\\outside\\victim.md",
    "daily\\..",
]


@pytest.mark.parametrize("spelling", BACKSLASH_STEPS)
def test_a_backslash_step_up_is_refused_by_the_contract(tmp_path: Path, spelling: str) -> None:
    vault = vault_copy(tmp_path)
    before = snapshot(vault.path)
    for tool, args in (
        ("read_note", {"path": spelling}),
        ("create_note", {"path": spelling, "content": "pwned"}),
        ("move_file", {"source_path": "daily/2024-03-12.md", "destination_path": spelling}),
    ):
        assert call(vault, tool, args) == (
            f"Tool execution error: {tool}: paths outside the vault are not allowed: {spelling}"
        )
    assert snapshot(vault.path) == before


def test_dots_inside_a_name_are_not_a_step_up(tmp_path: Path) -> None:
    vault = vault_copy(tmp_path)
    result = call(vault, "create_note", {"path": "ideas\\v2..draft.md", "content": "x"})
    assert "outside the vault" not in result


# --- generated-block markers ----------------------------------------------------------------------

# What a lenient reader (an HTML comment parser, a later version of our own) could take for a
# marker: any case, any whitespace between ``<!--`` and ``@``.
_READS_AS_MARKER = re.compile(r"<!--\s*@(?:generated|end)\b", re.IGNORECASE)

LOOK_ALIKES = [
    "<!-- @end:notes -->",
    "<!-- @END:notes -->",
    "<!-- @End:notes -->",
    "<!-- @GENERATED:notes -->",
    "<!--@end:notes-->",
    "<!--   @end:notes -->",
    "<!--\t@end:notes -->",
    "<!--\n@generated:notes -->",
    "<!--  \n  @End:notes -->",
]


@pytest.mark.parametrize("marker", LOOK_ALIKES)
def test_every_spelling_of_a_marker_from_a_model_is_neutralised(marker: str) -> None:
    text = f"summary\n{marker}\nmore"
    safe = neutralise(text)
    assert _READS_AS_MARKER.search(safe) is None
    assert safe.replace(ZERO_WIDTH, "") == text  # only the zero-width space was added
    assert safe.count("<!--" + ZERO_WIDTH) == 1


@pytest.mark.parametrize("marker", LOOK_ALIKES)
def test_a_block_holding_a_look_alike_reads_back_whole(marker: str) -> None:
    note = "# Hub\n\nmy own words\n"
    content = f"line one\n{marker}\nline two"
    updated = upsert_block(note, "notes", content)
    again = upsert_block(updated, "notes", "fresh")
    assert updated.startswith(note) and again.startswith(note)
    assert read_block(again, "notes") == "fresh"
    assert len(_READS_AS_MARKER.findall(updated)) == 2  # our own two markers, no third


def test_ordinary_comments_are_left_alone() -> None:
    text = "<!-- a note to self --> <!-- @todo later --> <!-- @ended -->"
    assert neutralise(text) == text
