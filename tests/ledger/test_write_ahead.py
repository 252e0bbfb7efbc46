"""The journal's view of the vault as each step leaves it: later steps inside a folder an earlier
step created keep what that step put there, and a step that makes a folder already there records
nothing of it, so the finished record is exactly what changed on disk and undoes exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ledger.conftest import tree
from vaultctx.api import Vault
from vaultctx.ledger import batch as batch_module
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.snapshot import FolderState, files_in
from vaultctx.vault.writes import exists as real_exists

CLI = ChangeContext("write-ahead test", source="cli")


def test_notes_added_deep_inside_a_folder_the_batch_created_are_all_recorded(
    vault: Vault, vault_dir: Path
) -> None:
    before = tree(vault_dir)
    with vault.change_batch(CLI, "test") as batch:
        batch.create("New/Sub/a.md", "# a\n")
        batch.create("New/Sub/b.md", "# b\n")
        batch.create_folder("New/Sub/Deeper/Empty")
        batch.create("New/Sub/Deeper/c.md", "# c\n")
        batch.create("New/d.md", "# d\n")
    assert batch.change is not None and batch.change.record_id is not None
    [record] = vault.ledger()
    [entry] = record.entries  # one root: the outermost folder the batch created
    assert entry.path == "New"
    assert isinstance(entry.after, FolderState)
    assert sorted(path for path, _ in files_in(entry.after, "New")) == [
        "New/Sub/Deeper/Empty",
        "New/Sub/Deeper/c.md",
        "New/Sub/a.md",
        "New/Sub/b.md",
        "New/d.md",
    ]
    vault.undo()
    assert tree(vault_dir) == before


def test_a_folder_that_appeared_before_the_step_is_kept_as_it_is_and_not_recorded(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``create_folder`` checks the folder is missing, then journals making it: a folder (with a
    note) that appears in between is left as it is, and the batch records no change of it."""
    target = vault_dir / "10-projects"
    monkeypatch.setattr(
        batch_module, "exists", lambda path: False if path == target else real_exists(path)
    )
    before = tree(vault_dir)
    with vault.change_batch(CLI, "test") as batch:
        assert batch.create_folder("10-projects") is True
    assert tree(vault_dir) == before
    assert batch.change is None or batch.change.record_id is None
    assert vault.ledger() == []


def test_a_note_moved_out_of_a_folder_the_batch_created_leaves_it_in_the_record(
    vault: Vault, vault_dir: Path
) -> None:
    before = tree(vault_dir)
    with vault.change_batch(CLI, "test") as batch:
        batch.create("New/a.md", "# a\n")
        batch.create("New/b.md", "# b\n")
        batch.move("New/a.md", "Moved.md")
    [record] = vault.ledger()
    entries = {entry.path: entry for entry in record.entries}
    assert sorted(entries) == ["Moved.md", "New"]
    assert [path for path, _ in files_in(entries["New"].after, "New")] == ["New/b.md"]
    report = vault.undo()
    assert report.notices == []  # nothing was "already as before"
    assert tree(vault_dir) == before
