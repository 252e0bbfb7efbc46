"""Many changes as one ledger record (``Vault.change_batch``: P.A.R.A, triage, an approval) are
confined as single changes are: no step writes, moves or creates a folder outside the vault or
through a link, and a refused step leaves nothing behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT, data_dir, vault, vault_dir
from vaultctx.api import Vault
from vaultctx.vault.writes import NoteChangeError

__all__ = ["data_dir", "vault", "vault_dir"]  # the ledger tests' fixtures, used here too


def test_batch_steps_are_confined_like_single_changes(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    (vault.path / "escape").symlink_to(tmp_path, target_is_directory=True)
    with vault.change_batch(AGENT, "para") as batch:
        with pytest.raises(NoteChangeError):
            batch.create("../outside.md", "x")
        with pytest.raises(NoteChangeError):
            batch.move("Inbox.md", "escape/Inbox.md")
        with pytest.raises(NoteChangeError):
            batch.rewrite("escape/outside.md", lambda text: "overwritten")
        with pytest.raises(NoteChangeError, match="path refused: 10-projects"):
            batch.move("10-projects", "01. Projects/10-projects")
    assert outside.read_text() == "keep"
    assert (vault.path / "Inbox.md").exists()
    assert vault.ledger() == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_folder_through_a_link_is_refused(vault: Vault, vault_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault_dir / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(NoteChangeError), vault.change_batch(AGENT, "para") as batch:
        batch.create_folder("linked/new")
    assert list(outside.iterdir()) == []
