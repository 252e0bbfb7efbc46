"""Many changes as one ledger record: what an approval, a P.A.R.A plan or a triage run writes is
taken back by one undo, exactly, and nothing a user saved meanwhile is reverted with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.ledger.changes import NoteChanger
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.store import Journal, LedgerStore
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
    assert change.paths == [
        "10-projects/Plan.md",
        "01. Projects/sub/Plan.md",
        "10-projects/Budget.md",
        "20-areas/Review.md",
        "Inbox.md",
        "new/deep/Idea.md",
    ]
    # The two notes that linked Plan by path are rewritten; [[Plan]] still resolves by name.
    assert sorted(rewritten) == ["10-projects/Budget.md", "20-areas/Review.md"]
    assert "](../01.%20Projects/sub/Plan.md)" in (vault.path / "20-areas/Review.md").read_text()
    [record] = vault.ledger()
    assert record.id == change.record_id and record.label == "test change"
    assert record.kind == "para"
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
    assert batch.change is not None
    assert batch.change.paths == ["Inbox.md", "Archive/Inbox.md", "Inbox 2.md"]
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


def test_a_batch_updates_the_index_once_after(vault_dir: Path, tmp_path: Path) -> None:
    with Vault(vault_dir, db=tmp_path / "indexed.db") as handle:
        handle.index(fast=True)
        with handle.change_batch(AGENT, "triage") as batch:
            batch.create("05-signals/ai-tooling/Agents.md", "# Agents\n\nquokkaword signal\n")
        hits = handle.search("quokkaword").results
        assert hits[0].file_path == "05-signals/ai-tooling/Agents.md"


def test_a_note_moved_then_rewritten_comes_back_as_it_was(vault: Vault) -> None:
    before = tree(vault.path)
    with vault.change_batch(AGENT, "triage") as batch:
        batch.move("Inbox.md", "05-signals/other/Inbox.md")
        batch.rewrite("05-signals/other/Inbox.md", lambda text: "triaged\n" + text)
    vault.undo()
    assert tree(vault.path) == before


def test_a_save_between_read_and_write_is_kept_and_not_undone(vault: Vault) -> None:
    note = vault.path / "Inbox.md"
    saves = iter(["the user's save 1\n", "the user's save 2\n"])

    def add_a_line(text: str) -> str:
        save = next(saves, None)
        if save is not None:  # the user saves after the read, twice, before the write
            note.write_text(text + save)
        return text + "AI line\n"

    with vault.change_batch(AGENT, "review-links") as batch:
        assert batch.rewrite("Inbox.md", add_a_line)
    saved = "# Inbox\n\nNothing links here.\nthe user's save 1\nthe user's save 2\n"
    assert note.read_text() == saved + "AI line\n"
    vault.undo()
    assert note.read_text() == saved  # the user's saves survive the undo


def test_a_note_that_keeps_changing_under_the_rewrite_is_left_alone(vault: Vault) -> None:
    note = vault.path / "Inbox.md"

    def racing(text: str) -> str:
        note.write_text(text + "another save\n")
        return text + "AI line\n"

    with (
        pytest.raises(NoteChangeError, match=r"Inbox\.md"),
        vault.change_batch(AGENT, "review-links") as batch,
    ):
        batch.rewrite("Inbox.md", racing)
    assert "AI line" not in note.read_text()
    assert vault.ledger() == []


def test_link_rewrites_skip_a_note_saved_meanwhile_and_say_so(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = NoteChanger._plan_link_rewrites

    def plan_then_user_saves(
        self: NoteChanger, moved: dict[str, str]
    ) -> list[tuple[str, str, bytes, bytes]]:
        plans = plan(self, moved)
        budget = vault.path / "10-projects/Budget.md"
        budget.write_text(budget.read_text() + "user line\n")
        return plans

    monkeypatch.setattr(NoteChanger, "_plan_link_rewrites", plan_then_user_saves)
    with vault.change_batch(AGENT, "para") as batch:
        rewritten = batch.move("10-projects/Plan.md", "01. Projects/Plan.md")
    assert rewritten == ["20-areas/Review.md"]
    assert batch.notices == [
        "10-projects/Budget.md changed meanwhile: its links were not rewritten"
    ]
    assert (vault.path / "10-projects/Budget.md").read_text().endswith("user line\n")
    assert "01.%20Projects/Plan.md" in (vault.path / "20-areas/Review.md").read_text()


def test_step_errors_name_the_note_and_the_fix(vault: Vault) -> None:
    (vault.path / "Latin1.md").write_bytes(b"caf\xe9\n")
    (vault.path / "Folder.md").mkdir()
    (vault.path / "Big.md").write_text("y" * 4_000_000)
    with vault.change_batch(AGENT, "review-links") as batch:
        with pytest.raises(NoteChangeError) as missing:
            batch.move("Gone.md", "Elsewhere.md")
        assert missing.value.one_line() == (
            "Gone.md does not exist; nothing was moved; check the path"
        )
        with pytest.raises(NoteChangeError) as folder:
            batch.move("Folder.md", "Elsewhere.md")
        assert folder.value.one_line() == (
            "Folder.md is a folder; a batch moves notes only; move the notes in it"
        )
        with pytest.raises(NoteChangeError) as taken:
            batch.move("Inbox.md", "10-projects/Plan.md")
        assert "10-projects/Plan.md" in taken.value.message
        with pytest.raises(NoteChangeError) as exists:
            batch.create("Inbox.md", "x")
        assert exists.value.one_line() == "File already exists: Inbox.md; choose another path"
        with pytest.raises(NoteChangeError) as latin1:
            batch.rewrite("Latin1.md", str.upper)
        assert latin1.value.one_line() == (
            "Latin1.md is not UTF-8 text; nothing was changed in it; "
            "convert it to UTF-8, or leave it out"
        )
        with pytest.raises(NoteChangeError) as gone:
            batch.rewrite("Gone.md", str.upper)
        assert gone.value.message == "File not found: Gone.md"
        with pytest.raises(NoteChangeError) as large:
            batch.rewrite("Big.md", lambda text: text + "z" * 1_500_000)
        assert large.value.message.startswith("The note would be too large: it is too large")
    assert batch.change is not None and batch.change.record_id is None


def test_a_batch_needs_a_label(vault: Vault) -> None:
    with pytest.raises(ValueError, match=r"^a change needs a label$"):
        vault.change_batch(ChangeContext(" "), "x").__enter__()


def test_a_batch_creates_folders_and_undo_removes_them(vault: Vault) -> None:
    before = tree(vault.path)
    with vault.change_batch(AGENT, "create") as batch:
        assert batch.create_folder("Wiki/concepts")
        assert not batch.create_folder("Wiki/concepts")  # there already: nothing to record
        assert batch.create_folder("Wiki/projects")
        batch.create("Wiki/concepts/Soil.md", "soil")
    assert batch.change is not None and batch.change.record_id is not None
    assert (vault.path / "Wiki/projects").is_dir()
    [record] = vault.ledger()
    assert record.paths == ["Wiki"]  # the outermost folder made holds everything else
    with (
        pytest.raises(NoteChangeError, match="is a file, not a folder"),
        vault.change_batch(AGENT, "create") as failed,
    ):
        failed.create_folder("Inbox.md")
    assert failed.change is not None and failed.change.record_id is None
    vault.undo()
    assert tree(vault.path) == before


def refusal(error: pytest.ExceptionInfo[NoteChangeError]) -> tuple[str, str]:
    return error.value.message, error.value.suggestion


def test_a_batch_trashes_notes_only_and_says_so(vault: Vault) -> None:
    (vault.path / "Folder.md").mkdir()
    before = tree(vault.path)
    with vault.change_batch(AGENT, "triage") as batch:
        for path in ("gone.md", "Folder.md"):
            with pytest.raises(NoteChangeError) as refused:
                batch.trash(path)
            assert refusal(refused) == (
                f"{path} is not a note; nothing was moved to .trash/",
                "check the path",
            )
    assert tree(vault.path) == before and vault.ledger() == []


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_batch_does_not_trash_into_a_trash_that_is_not_a_folder(
    vault: Vault, tmp_path: Path, kind: str
) -> None:
    trash = vault.path / ".trash"
    if kind == "file":
        trash.write_text("not a folder")
    else:
        (tmp_path / "elsewhere").mkdir()
        trash.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with vault.change_batch(AGENT, "triage") as batch, pytest.raises(NoteChangeError) as refused:
        batch.trash("Inbox.md")
    assert refusal(refused) == (
        ".trash in the vault is not a folder (a file or a link is there)",
        "move .trash away, then try again",
    )
    assert (vault.path / "Inbox.md").exists()


def test_a_batch_trashes_into_the_trash_folder_there_and_records_the_folder(
    vault: Vault,
) -> None:
    (vault.path / ".trash").mkdir()
    with vault.change_batch(AGENT, "triage") as batch:
        assert batch.trash("Inbox.md") == ".trash/Inbox.md"
        assert batch.create_folder("New/Sub") is True
        with pytest.raises(NoteChangeError) as refused:
            batch.create_folder("20-areas/Review.md")
    assert refusal(refused) == (
        "20-areas/Review.md is a file, not a folder; nothing was changed",
        "move or rename that file, or choose another folder",
    )
    assert batch.change is not None
    assert batch.change.paths == ["Inbox.md", ".trash/Inbox.md", "New/Sub"]


# A batch interrupted while it opens its journal (Ctrl-C after the ledger's lock is taken) lets
# the lock go and re-raises the interrupt itself: a half-started batch never keeps the next
# change waiting on a lock no one holds, nor turns the user's interrupt into an internal error.
def test_an_interrupt_while_the_journal_opens_releases_the_ledger(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = vault.ledger_store()
    started: list[bool] = []

    def interrupted(self: LedgerStore, **header: object) -> Journal:
        started.append(True)
        assert store.busy(), "the lock is taken before the journal opens"
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(LedgerStore, "begin", interrupted)
        with pytest.raises(KeyboardInterrupt) as caught, vault.change_batch(AGENT, "para"):
            pytest.fail("the block never runs")
    assert started == [True]
    assert caught.value.__context__ is None, "the interrupt is raised as it came"
    assert not store.busy(), "the lock is let go"
    with vault.change_batch(AGENT, "para") as batch:
        batch.create("After.md", "# After\n")
    assert [record.kind for record in store.records()] == ["para"]
