"""Many changes as one ledger record: what an approval, a P.A.R.A plan or a triage run writes is
taken back by one undo, exactly, and nothing a user saved meanwhile is reverted with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.ledger.undo import UndoConflictError
from vaultctx.vault.writes import NoteChangeError


def test_a_batch_is_one_record_and_one_undo_restores_every_file(vault: Vault) -> None:
    before = tree(vault.path)
    with vault.change_batch(AGENT, "para") as batch:
        rewritten = batch.move("10-projects/Plan.md", "01. Projects/sub/Plan.md")
        assert batch.rewrite("Inbox.md", lambda text: text + "More.\n")
        batch.create("new/deep/Idea.md", "# Idea\n")
    change = batch.change
    assert change is not None and change.record_id and change.kind == "para"
    # The two notes that linked Plan by path are rewritten; [[Plan]] still resolves by name.
    assert sorted(rewritten) == ["10-projects/Budget.md", "20-areas/Review.md"]
    assert "](../01.%20Projects/sub/Plan.md)" in (vault.path / "20-areas/Review.md").read_text()
    [record] = vault.ledger()
    assert record.id == change.record_id and record.label == "test change"
    assert sorted(record.paths) == sorted(
        [
            "10-projects/Plan.md",
            "01. Projects",
            "10-projects/Budget.md",
            "20-areas/Review.md",
            "Inbox.md",
            "new",
        ]
    )
    vault.undo()
    assert tree(vault.path) == before
    assert vault.ledger() == []


def test_a_batch_that_changes_nothing_records_nothing(vault: Vault) -> None:
    with vault.change_batch(AGENT, "review-links") as batch:
        assert not batch.rewrite("Inbox.md", lambda text: text)
    assert batch.change is not None and batch.change.record_id is None
    assert vault.ledger() == []


def test_a_failing_step_keeps_what_the_earlier_steps_did_undoable(vault: Vault) -> None:
    before = tree(vault.path)
    with (
        pytest.raises(NoteChangeError, match=r"File already exists: Inbox\.md"),
        vault.change_batch(AGENT, "triage") as batch,
    ):
        batch.rewrite("Inbox.md", lambda text: text.upper())
        batch.create("Inbox.md", "clobber?")
    assert (vault.path / "Inbox.md").read_text().startswith("# INBOX")
    [record] = vault.ledger()
    assert record.paths == ["Inbox.md"]
    vault.undo()
    assert tree(vault.path) == before


def test_a_note_touched_twice_is_recorded_once_from_its_first_state(vault: Vault) -> None:
    before = tree(vault.path)
    with vault.change_batch(AGENT, "review-links") as batch:
        batch.rewrite("Inbox.md", lambda text: text + "one\n")
        batch.rewrite("Inbox.md", lambda text: text + "two\n")
        batch.move("Inbox.md", "Archive/Inbox.md")
        batch.move("Archive/Inbox.md", "Inbox 2.md")
    [record] = vault.ledger()
    # Archive/ was created on the way and left empty: recorded, so undo removes it too.
    assert sorted(record.paths) == ["Archive", "Inbox 2.md", "Inbox.md"]
    vault.undo()
    assert tree(vault.path) == before


def test_undo_refuses_when_the_user_edited_a_batch_file_afterwards(vault: Vault) -> None:
    with vault.change_batch(AGENT, "review-links") as batch:
        batch.rewrite("Inbox.md", lambda text: text + "AI line\n")
        batch.rewrite("20-areas/Review.md", lambda text: text + "AI line\n")
    edited = vault.path / "20-areas/Review.md"
    edited.write_text(edited.read_text() + "the user's own line\n")
    snapshot = tree(vault.path)
    with pytest.raises(UndoConflictError) as conflict:
        vault.undo()
    assert "20-areas/Review.md" in conflict.value.message
    assert tree(vault.path) == snapshot  # nothing half-undone


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


def test_a_batch_updates_the_index_once_after(vault_dir: Path, tmp_path: Path) -> None:
    with Vault(vault_dir, db=tmp_path / "indexed.db") as handle:
        handle.index(fast=True)
        with handle.change_batch(AGENT, "triage") as batch:
            batch.create("05-signals/ai-tooling/Agents.md", "# Agents\n\nquokkaword signal\n")
        hits = handle.search("quokkaword").results
        assert hits[0].file_path == "05-signals/ai-tooling/Agents.md"
