"""Each change operation: what it writes, what it records, and the texts of its errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.vault.writes import NoteChangeError


def test_create_makes_folders_and_records_one_undoable_change(vault: Vault) -> None:
    before = tree(vault.path)
    change = vault.create_note("30-new/deep/Idea.md", "# Idea\n", change=AGENT)
    assert change.kind == "create" and change.paths == ["30-new/deep/Idea.md"]
    assert (vault.path / "30-new/deep/Idea.md").read_text() == "# Idea\n"
    [record] = vault.ledger()
    assert record.id == change.record_id and record.paths == ["30-new"]
    assert record.label == "test change" and record.conversation_id == "c-1"
    assert record.source == "agent"
    vault.undo()
    assert tree(vault.path) == before
    assert vault.ledger() == []


def test_create_refuses_an_existing_note(vault: Vault) -> None:
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.create_note("Inbox.md", "x", change=AGENT)
    assert refused.value.message == "File already exists: Inbox.md"
    assert tree(vault.path) == before and vault.ledger() == []


def test_create_refuses_an_existing_folder_named_like_the_note(vault: Vault) -> None:
    (vault.path / "Topic.md").mkdir()
    with pytest.raises(NoteChangeError, match=r"^File already exists: Topic\.md$"):
        vault.create_note("Topic.md", "x", change=AGENT)


def test_replace_and_its_errors(vault: Vault) -> None:
    change = vault.replace_note("Inbox.md", "new", change=AGENT)
    assert (vault.path / "Inbox.md").read_text() == "new" and change.record_id
    with pytest.raises(NoteChangeError, match=r"^File not found: Nope\.md$"):
        vault.replace_note("Nope.md", "x", change=AGENT)
    same = vault.replace_note("Inbox.md", "new", change=AGENT)
    assert same.record_id is None  # a no-op is not recorded
    assert len(vault.ledger()) == 1


def test_edit_replaces_every_occurrence(vault: Vault) -> None:
    (vault.path / "Inbox.md").write_text("a b a b a\n")
    change = vault.edit_note("Inbox.md", "a", "X", change=AGENT)
    assert change.replaced == 3 and change.kind == "edit"
    assert (vault.path / "Inbox.md").read_text() == "X b X b X\n"


def test_edit_errors_use_the_tool_texts(vault: Vault) -> None:
    with pytest.raises(NoteChangeError) as missing:
        vault.edit_note("Nope.md", "a", "b", change=AGENT)
    assert missing.value.message == "File not found: Nope.md"
    with pytest.raises(NoteChangeError) as empty:
        vault.edit_note("Inbox.md", "", "b", change=AGENT)
    assert "`find` must not be empty" in empty.value.message
    long_find = "no such text " * 10
    with pytest.raises(NoteChangeError) as unmatched:
        vault.edit_note("Inbox.md", long_find, "b", change=AGENT)
    assert unmatched.value.message.startswith(
        f'Could not find the text to replace: "{long_find[:50]}..."\nNo changes were made.'
    )
    assert "read_note" in unmatched.value.message
    assert vault.ledger() == []


def test_crlf_note_edited_with_lf_find(vault: Vault) -> None:
    note = vault.path / "Windows.md"
    note.write_bytes(b"# Title\r\nfirst line\r\nsecond line\r\n")
    change = vault.edit_note("Windows.md", "first line\nsecond line", "one\ntwo", change=AGENT)
    assert change.replaced == 1
    assert note.read_bytes() == b"# Title\r\none\r\ntwo\r\n"
    vault.undo()
    assert note.read_bytes() == b"# Title\r\nfirst line\r\nsecond line\r\n"


def test_crlf_find_written_verbatim_is_used_verbatim(vault: Vault) -> None:
    note = vault.path / "Mixed.md"
    note.write_bytes(b"a\r\nb\nc\r\n")
    vault.edit_note("Mixed.md", "b\nc", "B\nC", change=AGENT)
    assert note.read_bytes() == b"a\r\nB\nC\r\n"


def test_append_adds_a_newline_then_the_content(vault: Vault) -> None:
    vault.append_to_note("Inbox.md", "- more", change=AGENT)
    assert (vault.path / "Inbox.md").read_text().endswith("Nothing links here.\n\n- more")
    with pytest.raises(NoteChangeError, match=r"^File not found: Gone\.md$"):
        vault.append_to_note("Gone.md", "x", change=AGENT)


def test_a_file_keeps_its_mode(vault: Vault) -> None:
    note = vault.path / "Inbox.md"
    os.chmod(note, 0o600)
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    assert stat.S_IMODE(note.stat().st_mode) == 0o600
    os.chmod(note, 0o644)
    vault.undo()
    assert stat.S_IMODE(note.stat().st_mode) == 0o600


def test_ten_megabytes_of_content_is_refused(vault: Vault) -> None:
    big = "x" * 10_000_000
    before = tree(vault.path)
    for call in (
        lambda: vault.create_note("Big.md", big, change=AGENT),
        lambda: vault.replace_note("Inbox.md", big, change=AGENT),
        lambda: vault.append_to_note("Inbox.md", big, change=AGENT),
        lambda: vault.edit_note("Inbox.md", "Nothing", big, change=AGENT),
    ):
        with pytest.raises(NoteChangeError, match=r"too large.*max_file_bytes"):
            call()
    assert tree(vault.path) == before and vault.ledger() == []


def test_an_append_that_would_grow_the_note_past_the_limit_is_refused(vault: Vault) -> None:
    (vault.path / "Large.md").write_text("y" * 4_000_000)
    with pytest.raises(NoteChangeError, match="would be too large"):
        vault.append_to_note("Large.md", "z" * 1_500_000, change=AGENT)
    assert (vault.path / "Large.md").stat().st_size == 4_000_000


def test_move_rewrites_links_in_two_notes_and_one_undo_reverts_all(vault: Vault) -> None:
    before = tree(vault.path)
    change = vault.move_path("10-projects/Plan.md", "40-archive/Old plan.md", change=AGENT)
    assert sorted(change.rewritten) == ["10-projects/Budget.md", "20-areas/Review.md"]
    assert (vault.path / "10-projects/Budget.md").read_text() == (
        "# Budget\n\nSee [[Old plan]] and [[40-archive/Old plan#Goals|the goals]].\n"
    )
    assert (vault.path / "20-areas/Review.md").read_text() == (
        "# Review\n\n![[Old plan]] and [the plan](../40-archive/Old%20plan.md).\n"
    )
    assert not (vault.path / "10-projects/Plan.md").exists()
    [record] = vault.ledger()
    assert set(record.paths) == {
        "10-projects/Plan.md",
        "40-archive",
        "10-projects/Budget.md",
        "20-areas/Review.md",
    }
    vault.undo()
    assert tree(vault.path) == before


def test_move_keeps_links_that_still_resolve(vault: Vault) -> None:
    change = vault.move_path("10-projects/Plan.md", "40-archive/Plan.md", change=AGENT)
    # [[Plan]] and ![[Plan]] still find the only Plan; the path links needed rewriting.
    text = (vault.path / "10-projects/Budget.md").read_text()
    assert "[[Plan]]" in text and "[[40-archive/Plan#Goals|the goals]]" in text
    assert "20-areas/Review.md" in change.rewritten


def test_move_refuses_an_existing_destination(vault: Vault) -> None:
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.move_path("Inbox.md", "10-projects/Plan.md", change=AGENT)
    assert refused.value.message == "A file already exists at the destination: 10-projects/Plan.md"
    with pytest.raises(NoteChangeError, match=r"^File or folder not found: Nope\.md$"):
        vault.move_path("Nope.md", "Else.md", change=AGENT)
    with pytest.raises(NoteChangeError, match="into itself"):
        vault.move_path("10-projects", "10-projects/sub", change=AGENT)
    assert tree(vault.path) == before and vault.ledger() == []


def test_moving_a_folder_rewrites_links_to_its_notes(vault: Vault) -> None:
    before = tree(vault.path)
    change = vault.move_path("10-projects", "projects-2024", change=AGENT)
    assert change.is_folder
    assert (
        "[[projects-2024/Plan#Goals|the goals]]"
        in (vault.path / "projects-2024/Budget.md").read_text()
    )
    assert "(../projects-2024/Plan.md)" in (vault.path / "20-areas/Review.md").read_text()
    vault.undo()
    assert tree(vault.path) == before


def test_links_in_code_are_not_rewritten(vault: Vault) -> None:
    (vault.path / "Code.md").write_text("`[[10-projects/Plan]]`\n\n[[10-projects/Plan]]\n")
    vault.move_path("10-projects/Plan.md", "Plan2.md", change=AGENT)
    assert (vault.path / "Code.md").read_text() == "`[[10-projects/Plan]]`\n\n[[Plan2]]\n"


def test_trash_moves_into_dot_trash_with_numbered_names(vault: Vault) -> None:
    first = vault.trash_path("Inbox.md", change=AGENT)
    assert first.paths == ["Inbox.md", ".trash/Inbox.md"]
    (vault.path / "Inbox.md").write_text("again")
    second = vault.trash_path("Inbox.md", change=AGENT)
    assert second.paths == ["Inbox.md", ".trash/Inbox 1.md"]
    assert (vault.path / ".trash/Inbox 1.md").read_text() == "again"
    with pytest.raises(NoteChangeError, match=r"^File or folder not found: Inbox\.md$"):
        vault.trash_path("Inbox.md", change=AGENT)
    vault.undo()
    assert (vault.path / "Inbox.md").read_text() == "again"


def test_trash_of_a_folder_of_1000_notes_is_one_undoable_record(vault: Vault) -> None:
    folder = vault.path / "big"
    folder.mkdir()
    for number in range(1000):
        (folder / f"note {number:04}.md").write_text(f"# Note {number}\n\nbody {number}\n")
    (folder / "empty sub").mkdir()
    before = tree(vault.path)
    change = vault.trash_path("big", change=AGENT)
    assert change.is_folder and not folder.exists()
    assert len(list((vault.path / ".trash/big").iterdir())) == 1001
    [record] = vault.ledger()
    assert record.paths == ["big", ".trash"]
    vault.undo()
    assert tree(vault.path) == before


def test_a_user_edit_between_change_and_undo_refuses_the_undo(vault: Vault) -> None:
    from vaultctx.ledger.undo import UndoConflictError

    vault.move_path("10-projects/Plan.md", "Plan moved.md", change=AGENT)
    (vault.path / "10-projects/Budget.md").write_text("the user rewrote this\n")
    after_user = tree(vault.path)
    for dry_run in (True, False):
        with pytest.raises(UndoConflictError) as refused:
            vault.undo(dry_run=dry_run)
        assert "10-projects/Budget.md" in refused.value.message
        assert "Plan moved.md" not in refused.value.message
        assert "nothing was written" in refused.value.message
    assert tree(vault.path) == after_user
    assert len(vault.ledger()) == 1  # the record stays


def test_a_file_added_to_a_trashed_folder_refuses_the_undo(vault: Vault) -> None:
    from vaultctx.ledger.undo import UndoConflictError

    vault.trash_path("10-projects", change=AGENT)
    (vault.path / ".trash/10-projects/Mine.md").write_text("mine")
    with pytest.raises(UndoConflictError, match=r"\.trash/10-projects/Mine\.md"):
        vault.undo()
    assert (vault.path / ".trash/10-projects/Mine.md").read_text() == "mine"


def test_dry_run_shows_the_diff_and_writes_nothing(vault: Vault) -> None:
    vault.edit_note("Inbox.md", "Nothing links here.", "Something now.", change=AGENT)
    after = tree(vault.path)
    report = vault.undo(dry_run=True)
    assert report.dry_run and [d.path for d in report.diffs] == ["Inbox.md"]
    assert "-Something now.\n+Nothing links here.\n" in report.diffs[0].diff
    assert tree(vault.path) == after and len(vault.ledger()) == 1


def test_undo_goes_back_one_change_at_a_time(vault: Vault) -> None:
    original = tree(vault.path)
    vault.append_to_note("Inbox.md", "one", change=AGENT)
    middle = tree(vault.path)
    vault.append_to_note("Inbox.md", "two", change=AGENT)
    vault.undo()
    assert tree(vault.path) == middle
    vault.undo()
    assert tree(vault.path) == original


def test_the_ledger_keeps_every_recent_record(vault: Vault, data_dir: Path) -> None:
    """Retention is by age (tests/security/test_ledger_retention.py): 25 changes of today are
    all kept, however many."""
    for number in range(25):
        vault.append_to_note("Inbox.md", f"line {number}", change=AGENT)
    records = vault.ledger(limit=100)
    assert len(records) == 25
    blobs = list(vault.ledger_store().folder.joinpath("blobs").iterdir())
    assert len(blobs) == 26  # 25 records chain 26 distinct contents
    assert vault.ledger_record(records[0].id) == records[0]


def test_failures_are_not_recorded(vault: Vault) -> None:
    for call in (
        lambda: vault.create_note("../escape.md", "x", change=AGENT),
        lambda: vault.edit_note("Inbox.md", "absent", "x", change=AGENT),
        lambda: vault.trash_path("missing", change=AGENT),
    ):
        with pytest.raises(NoteChangeError):
            call()
    assert vault.ledger() == []


def test_the_ledger_survives_a_full_reindex_and_changes_are_searchable(
    vault_dir: Path, tmp_path: Path
) -> None:
    vault = Vault(vault_dir, db=tmp_path / "indexed.db")
    vault.index(fast=True)
    vault.create_note("Zebra.md", "# Zebra\n\nStriped quokkaelephant facts.\n", change=AGENT)
    hits = vault.search("quokkaelephant", mode="bm25").results
    assert [hit.file_path for hit in hits] == ["Zebra.md"]
    vault.index(full=True, fast=True)
    assert len(vault.ledger()) == 1
    vault.undo()
    assert vault.search("quokkaelephant", mode="bm25").results == []


def test_a_folder_or_fifo_named_like_a_note_is_not_a_note(vault: Vault) -> None:
    (vault.path / "Folder.md").mkdir()
    os.mkfifo(vault.path / "Pipe.md")
    for name in ("Folder.md", "Pipe.md"):
        with pytest.raises(NoteChangeError, match=f"^File not found: {name}$"):
            vault.append_to_note(name, "x", change=AGENT)
        with pytest.raises(NoteChangeError, match=f"^File not found: {name}$"):
            vault.edit_note(name, "a", "b", change=AGENT)
        with pytest.raises(NoteChangeError, match=f"^File not found: {name}$"):
            vault.replace_note(name, "x", change=AGENT)


def test_a_batch_creates_folders_and_undo_removes_them(tmp_path: Path, data_dir: Path) -> None:
    from vaultctx.ledger.context import ChangeContext

    root = tmp_path / "v"
    root.mkdir()
    (root / "file.md").write_text("x", encoding="utf-8")
    vault = Vault(root, db=tmp_path / "i.db")
    with vault.change_batch(ChangeContext("folders", source="cli"), "create") as batch:
        assert batch.create_folder("W/a")
        assert not batch.create_folder("W/a")  # already there: nothing to record
        batch.create("W/a/n.md", "n")
    assert batch.change is not None and batch.change.record_id is not None
    assert (root / "W/a/n.md").read_text(encoding="utf-8") == "n"
    with (
        pytest.raises(NoteChangeError, match="is a file, not a folder"),
        vault.change_batch(ChangeContext("bad", source="cli"), "create") as batch,
    ):
        batch.create_folder("file.md")
    vault.undo()
    assert not (root / "W").exists()
    assert (root / "file.md").read_text(encoding="utf-8") == "x"
