"""Undo puts back each path as it was before the change, byte for byte and with its mode: a
nested folder the change removed comes back whole, what the change created goes, and a link
(which undo never creates or removes) stops it with the fix."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.vault.writes import NoteChangeError

CLI = ChangeContext("undo test", source="cli")


def test_a_trashed_folder_tree_comes_back_whole_with_each_mode(
    vault: Vault, vault_dir: Path
) -> None:
    (vault_dir / "10-projects" / "Deep" / "Deeper").mkdir(parents=True)
    (vault_dir / "10-projects" / "Deep" / "Deeper" / "x.md").write_text("# x\n")
    (vault_dir / "10-projects" / "Deep" / "Empty").mkdir()
    (vault_dir / "10-projects" / "Plan.md").chmod(0o600)
    before = tree(vault_dir)
    vault.trash_path("10-projects", change=AGENT)
    assert not (vault_dir / "10-projects").exists()
    vault.undo()
    assert tree(vault_dir) == before
    assert stat.S_IMODE(os.lstat(vault_dir / "10-projects" / "Plan.md").st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(vault_dir / "10-projects" / "Budget.md").st_mode) != 0o600


def test_a_replaced_note_gets_its_bytes_and_mode_back(vault: Vault, vault_dir: Path) -> None:
    note = vault_dir / "Inbox.md"
    note.chmod(0o640)
    before = note.read_bytes()
    vault.replace_note("Inbox.md", "# other\n", change=AGENT)
    vault.undo()
    assert note.read_bytes() == before
    assert stat.S_IMODE(os.lstat(note).st_mode) == 0o640


def test_a_link_put_where_the_change_created_a_note_stops_undo(
    vault: Vault, vault_dir: Path
) -> None:
    with vault.change_batch(CLI, "test") as batch:
        batch.create("New/a.md", "# a\n")
    (vault_dir / "New" / "a.md").unlink()
    os.symlink("../Inbox.md", vault_dir / "New" / "a.md")
    with pytest.raises(NoteChangeError):
        vault.undo()
    assert os.path.islink(vault_dir / "New" / "a.md")
