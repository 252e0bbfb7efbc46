"""Empty folders and many moves in one batch (P.A.R.A's apply): ``create_folder`` with
``move_notes`` is one record; undo removes the folders again, but never one that something was
put in since; ``move_notes`` plans the links once and leaves out, with a reason, what it cannot
move."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ledger.conftest import tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.undo import UndoConflictError

CLI = ChangeContext("para test", source="cli")


def test_empty_folders_and_a_move_are_one_record_and_one_undo(
    vault: Vault, vault_dir: Path
) -> None:
    before = tree(vault_dir)
    with vault.change_batch(CLI, "para") as batch:
        assert batch.create_folder("01. Projects") is True
        assert batch.create_folder("02. Areas/Sub") is True
        assert batch.create_folder("01. Projects") is False  # there now: nothing to do
        batch.move("Inbox.md", "01. Projects/Inbox.md")
    assert batch.change is not None and batch.change.record_id is not None
    assert (vault_dir / "02. Areas" / "Sub").is_dir()
    assert (vault_dir / "01. Projects" / "Inbox.md").is_file()
    assert len(vault.ledger()) == 1
    vault.undo()
    assert tree(vault_dir) == before


def test_undo_refuses_when_the_user_put_a_note_in_the_new_folder(
    vault: Vault, vault_dir: Path
) -> None:
    with vault.change_batch(CLI, "para") as batch:
        batch.create_folder("04. Archives")
    (vault_dir / "04. Archives" / "Mine.md").write_text("# mine\n", encoding="utf-8")
    with pytest.raises(UndoConflictError):
        vault.undo()
    assert (vault_dir / "04. Archives" / "Mine.md").read_text(encoding="utf-8") == "# mine\n"


def test_move_notes_moves_several_with_links_planned_once(vault: Vault, vault_dir: Path) -> None:
    before = tree(vault_dir)
    moves = {
        "10-projects/Plan.md": "01. Projects/Plan.md",
        "Inbox.md": "04. Archives/Inbox.md",
        "20-areas/Review.md": "10-projects/Budget.md",  # taken: refused, the others made
        "gone.md": "04. Archives/gone.md",  # no such note
        "10-projects/Budget.md": "01. Projects/plan.md",  # the same name as an earlier move
        "20-areas": "02. Areas/x.md",  # a folder
    }
    with vault.change_batch(CLI, "para") as batch:
        rewritten, refused = batch.move_notes(moves)
    assert sorted(refused) == ["10-projects/Budget.md", "20-areas", "20-areas/Review.md", "gone.md"]
    assert refused["20-areas/Review.md"] == (
        "A file already exists at the destination: 10-projects/Budget.md"
    )
    assert refused["10-projects/Budget.md"].endswith("01. Projects/plan.md")
    assert (vault_dir / "01. Projects" / "Plan.md").is_file()
    assert (vault_dir / "04. Archives" / "Inbox.md").is_file()
    # Links to Plan in notes that stayed were rewritten, each note recorded once.
    assert sorted(rewritten) == ["10-projects/Budget.md", "20-areas/Review.md"]
    budget = (vault_dir / "10-projects" / "Budget.md").read_text(encoding="utf-8")
    assert "[[01. Projects/Plan#Goals|the goals]]" in budget
    review = (vault_dir / "20-areas" / "Review.md").read_text(encoding="utf-8")
    assert "](../01.%20Projects/Plan.md)" in review
    assert len(vault.ledger()) == 1
    vault.undo()
    assert tree(vault_dir) == before


def test_move_notes_with_nothing_to_move_records_nothing(vault: Vault) -> None:
    with vault.change_batch(CLI, "para") as batch:
        assert batch.move_notes({"gone.md": "x/gone.md"})[0] == []
    assert batch.change is not None and batch.change.record_id is None
