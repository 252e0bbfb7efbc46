"""Each change operation: what it writes, what it records, and the texts of its errors."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, NOTES, tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
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
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.create_note("Big.md", big, change=AGENT),
        lambda: vault.replace_note("Inbox.md", big, change=AGENT),
        lambda: vault.append_to_note("Inbox.md", big, change=AGENT),
        lambda: vault.edit_note("Inbox.md", "Nothing", big, change=AGENT),
    )
    for call in calls:
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
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.create_note("../escape.md", "x", change=AGENT),
        lambda: vault.edit_note("Inbox.md", "absent", "x", change=AGENT),
        lambda: vault.trash_path("missing", change=AGENT),
    )
    for call in calls:
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


# -- each operation's refusals word for word, and the edges of its checks (mutation: changes.py)


def small_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int) -> Vault:
    from tests.ledger.test_failed_steps import user_settings

    user_settings(tmp_path, monkeypatch, f"max_file_bytes = {limit}\n")
    return Vault(make_vault(tmp_path / "small", NOTES), db=tmp_path / "small.db")


def test_each_content_limit_is_named_with_its_figures(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = small_vault(tmp_path, monkeypatch, 1_000)
    (vault.path / "Short.md").write_text("s" * 990)
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as replaced:
        vault.replace_note("Inbox.md", "x" * 1_001, change=AGENT)
    assert replaced.value.message == (
        "The content is too large: 1,001 bytes, over the limit of 1,000 bytes "
        "(`max_file_bytes`); nothing was changed"
    )
    assert replaced.value.suggestion == "split it into several smaller notes"
    with pytest.raises(NoteChangeError) as edited:
        vault.edit_note("Inbox.md", "Nothing", "y" * 1_001, change=AGENT)
    assert edited.value.message.startswith("The replacement text is too large: 1,001 bytes")
    with pytest.raises(NoteChangeError) as appended:
        vault.append_to_note("Inbox.md", "z" * 1_000, change=AGENT)  # and its newline
    assert appended.value.message.startswith("The content is too large: 1,001 bytes")
    with pytest.raises(NoteChangeError) as grown:
        vault.append_to_note("Short.md", "z" * 10, change=AGENT)
    assert grown.value.message == (
        "The note would be too large: it is too large: 1,001 bytes, over the limit of 1,000 "
        "bytes (`max_file_bytes`); nothing was changed"
    )
    assert tree(vault.path) == before and vault.ledger() == []
    vault.append_to_note("Short.md", "z" * 9, change=AGENT)  # exactly the limit
    vault.replace_note("Inbox.md", "x" * 1_000, change=AGENT)
    vault.edit_note("Short.md", "z" * 9, "w" * 9, change=AGENT)
    assert (vault.path / "Short.md").read_text() == "s" * 990 + "\n" + "w" * 9
    assert len(vault.ledger()) == 3


def test_edit_refusals_say_how_to_go_on(vault: Vault) -> None:
    with pytest.raises(NoteChangeError) as empty:
        vault.edit_note("Inbox.md", "", "b", change=AGENT)
    assert empty.value.message == "`find` must not be empty. No changes were made."
    assert empty.value.suggestion == "pass the exact text to replace, copied from read_note"
    with pytest.raises(NoteChangeError) as unmatched:
        vault.edit_note("Inbox.md", "absent", "b", change=AGENT)
    assert unmatched.value.message == (
        'Could not find the text to replace: "absent..."\nNo changes were made. '
        "Read the same file again with read_note and copy the exact text."
    )
    assert unmatched.value.suggestion == (
        "read the note again with read_note and pass text exactly as it appears"
    )
    (vault.path / "Binary.md").write_bytes(b"caf\xe9 text\n")
    with pytest.raises(NoteChangeError) as binary:
        vault.edit_note("Binary.md", "text", "words", change=AGENT)
    assert binary.value.message == (
        "Binary.md is not UTF-8 text, so it cannot be edited by find and replace; nothing was "
        "changed"
    )
    assert binary.value.suggestion == "replace its whole content instead, if that is what you want"
    assert vault.ledger() == []


def test_a_no_op_edit_counts_what_it_found_and_records_nothing(vault: Vault) -> None:
    (vault.path / "Inbox.md").write_text("a a a\n")
    same = vault.edit_note("Inbox.md", "a", "a", change=AGENT)
    assert (same.record_id, same.kind, same.paths, same.replaced) == (None, "edit", [], 3)
    unchanged = vault.replace_note("Inbox.md", "a a a\n", change=AGENT)
    assert (unchanged.kind, unchanged.replaced) == ("replace", 0)
    appended = vault.append_to_note("Inbox.md", "b", change=AGENT)
    assert (appended.kind, appended.paths, appended.replaced) == ("append", ["Inbox.md"], 0)
    edited = vault.edit_note("Inbox.md", "b", "c", change=AGENT)
    assert (edited.kind, edited.paths, edited.replaced) == ("edit", ["Inbox.md"], 1)
    assert len(vault.ledger()) == 2


def test_lf_text_is_looked_for_with_crlf_only_in_a_crlf_note(vault: Vault) -> None:
    note = vault.path / "Lf.md"
    note.write_bytes(b"one\rtwo\n")  # a lone CR: not a CRLF note
    with pytest.raises(NoteChangeError, match="Could not find"):
        vault.edit_note("Lf.md", "one\ntwo", "x", change=AGENT)
    crlf = vault.path / "Crlf.md"
    crlf.write_bytes(b"a\r\nb\r\n\r\nc\r\n")
    vault.edit_note("Crlf.md", "b\n\nc", "B\r\n\nC", change=AGENT)
    assert crlf.read_bytes() == b"a\r\nB\r\n\r\nC\r\n"


def saves_while_rewriting(monkeypatch: pytest.MonkeyPatch, note: Path, saves: int) -> list[str]:
    """The user saves ``note`` right after each of the first ``saves`` reads of a rewrite."""
    from vaultctx.ledger import changes
    from vaultctx.vault import writes

    real = writes.read_file
    saved: list[str] = []

    def read_then_save(path: Path, shown: str) -> bytes:
        data = real(path, shown)
        if len(saved) < saves:
            saved.append(f"user save {len(saved)}\n")
            note.write_text(saved[-1])
        return data

    monkeypatch.setattr(changes, "read_file", read_then_save)
    return saved


def test_a_rewrite_tries_three_times_while_the_user_saves(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultctx.vault.writes import ContentChangedError

    note = vault.path / "Inbox.md"
    saved = saves_while_rewriting(monkeypatch, note, 2)
    change = vault.append_to_note("Inbox.md", "mine", change=AGENT)
    assert note.read_text() == "user save 1\n\nmine" and len(saved) == 2
    [record] = vault.ledger()
    assert record.id == change.record_id
    vault.undo()
    assert note.read_text() == "user save 1\n"
    saves_while_rewriting(monkeypatch, note, 3)
    with pytest.raises(ContentChangedError) as refused:
        vault.append_to_note("Inbox.md", "mine", change=AGENT)
    assert (
        refused.value.message == "Inbox.md changed while it was being edited; nothing was changed"
    )
    assert note.read_text() == "user save 2\n" and vault.ledger() == []


def test_each_operation_refuses_an_unknown_source_by_name(vault: Vault) -> None:
    web = ChangeContext("x", source="web")
    before = tree(vault.path)
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.replace_note("Inbox.md", "x", change=web),
        lambda: vault.edit_note("Inbox.md", "Nothing", "x", change=web),
        lambda: vault.append_to_note("Inbox.md", "x", change=web),
        lambda: vault.move_path("Inbox.md", "Out.md", change=web),
        lambda: vault.trash_path("Inbox.md", change=web),
    )
    for call in calls:
        with pytest.raises(ValueError) as refused:
            call()
        assert str(refused.value) == (
            "ChangeContext.source must be one of ('agent', 'mcp', 'cli'), not 'web'"
        )
    assert tree(vault.path) == before and vault.ledger() == []


def test_a_folder_moves_beside_a_name_it_prefixes_but_never_into_itself(vault: Vault) -> None:
    with pytest.raises(NoteChangeError) as refused:
        vault.move_path("10-projects", "10-projects/sub", change=AGENT)
    assert refused.value.message == (
        "cannot move the folder 10-projects into itself (10-projects/sub); nothing was changed"
    )
    assert refused.value.suggestion == "choose a destination outside the folder"
    change = vault.move_path("10-projects", "10-projects-old", change=AGENT)
    assert change.is_folder and (vault.path / "10-projects-old/Plan.md").is_file()
    assert change.paths == ["10-projects", "10-projects-old", "20-areas/Review.md"]
    assert change.rewritten == ["20-areas/Review.md"]
    note = vault.move_path("Inbox.md", "Inbox/Inbox.md", change=AGENT)
    assert not note.is_folder and note.paths == ["Inbox.md", "Inbox/Inbox.md"]


def test_missing_paths_are_named_with_the_way_to_find_them(vault: Vault) -> None:
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.move_path("Nope.md", "Else.md", change=AGENT),
        lambda: vault.trash_path("Nope.md", change=AGENT),
    )
    for call in calls:
        with pytest.raises(NoteChangeError) as missing:
            call()
        assert missing.value.message == "File or folder not found: Nope.md"
        assert missing.value.suggestion == (
            "check the path with a search or a folder listing; paths are vault-relative"
        )


def assert_move_and_trash_refused(
    vault: Vault, folder: str, destination: str, message: str, suggestion: str
) -> None:
    """Moving and trashing ``folder`` both refused with these words, nothing written."""
    before = tree(vault.path)
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.move_path(folder, destination, change=AGENT),
        lambda: vault.trash_path(folder, change=AGENT),
    )
    for call in calls:
        with pytest.raises(NoteChangeError) as refused:
            call()
        assert (refused.value.message, refused.value.suggestion) == (message, suggestion)
    assert tree(vault.path) == before and vault.ledger() == []


def test_a_folder_holding_a_control_file_is_neither_moved_nor_trashed(vault: Vault) -> None:
    from vaultctx.vault.private_paths import FIX, HOLDS_CONTROL_REASON

    (vault.path / "10-projects/.hidden").write_text("secret")
    assert_move_and_trash_refused(
        vault,
        "10-projects",
        "projects",
        f"path refused: 10-projects {HOLDS_CONTROL_REASON}; nothing was changed",
        FIX,
    )


def test_a_folder_holding_a_link_is_neither_moved_nor_trashed(vault: Vault) -> None:
    (vault.path / "10-projects/Link.md").symlink_to(vault.path / "Inbox.md")
    assert_move_and_trash_refused(
        vault,
        "10-projects",
        "projects",
        (
            "10-projects/Link.md is a symbolic link or special file, which vaultctx does not "
            "move or delete; nothing was changed"
        ),
        "move or delete this folder yourself",
    )


def test_a_change_larger_than_the_ledger_keeps_is_refused_at_the_limit(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultctx.ledger import changes

    monkeypatch.setattr(changes, "MAX_RECORD_BYTES", 2_000_000)
    big = vault.path / "big"
    big.mkdir()
    (big / "a.md").write_bytes(b"a" * 1_500_000)
    (big / "b.md").write_bytes(b"b" * 600_000)
    assert_move_and_trash_refused(
        vault,
        "big",
        "bigger",
        (
            "big holds 2.1 MB, more than the change ledger keeps for one change (2 MB), so it "
            "could not be undone; nothing was changed"
        ),
        ("move or delete it yourself (in Obsidian or a file manager), or a part at a time"),
    )
    (big / "b.md").write_bytes(b"b" * 500_000)  # exactly the limit
    vault.move_path("big", "bigger", change=AGENT)
    assert (vault.path / "bigger/b.md").stat().st_size == 500_000
    vault.trash_path("bigger", change=AGENT)
    assert (vault.path / ".trash/bigger/b.md").stat().st_size == 500_000


def test_the_refusal_counts_megabytes_of_a_million_bytes(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the rounding edges: 2,050,001 bytes are 2.1 MB and a limit of 1,500,000 is 2 MB (the
    figures a user compares with what the file manager shows)."""
    from vaultctx.ledger import changes

    monkeypatch.setattr(changes, "MAX_RECORD_BYTES", 1_500_000)
    (vault.path / "Big.md").write_bytes(b"a" * 2_050_001)
    with pytest.raises(NoteChangeError) as refused:
        vault.move_path("Big.md", "Bigger.md", change=AGENT)
    assert refused.value.message.startswith(
        "Big.md holds 2.1 MB, more than the change ledger keeps for one change (2 MB),"
    )


def test_the_links_a_move_rewrites_count_towards_the_limit(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultctx.ledger import changes

    (vault.path / "Target.md").write_bytes(b"t" * 100)
    (vault.path / "Linker.md").write_bytes(b"[[Target]]" + b"x" * 200)
    monkeypatch.setattr(changes, "MAX_RECORD_BYTES", 308)  # 100 + 209 rewritten
    with pytest.raises(NoteChangeError, match=r"^Target\.md holds 0\.0 MB, more than"):
        vault.move_path("Target.md", "Moved.md", change=AGENT)
    monkeypatch.setattr(changes, "MAX_RECORD_BYTES", 309)
    vault.move_path("Target.md", "Moved.md", change=AGENT)
    assert (vault.path / "Linker.md").read_bytes() == b"[[Moved]]" + b"x" * 200


def test_trash_refuses_a_trash_that_is_not_a_folder(vault: Vault) -> None:
    (vault.path / ".trash").write_text("not a folder")
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.trash_path("Inbox.md", change=AGENT)
    assert refused.value.message == (
        ".trash in the vault is not a folder (a file or a link is there); nothing was changed"
    )
    assert refused.value.suggestion == "move .trash away, or delete the note yourself"
    assert tree(vault.path) == before and vault.ledger() == []


def test_trash_numbers_folders_and_names_without_an_extension(vault: Vault) -> None:
    (vault.path / ".trash").mkdir()
    for round_ in range(3):
        (vault.path / "README").write_text(f"readme {round_}")
        (vault.path / "Old").mkdir()
        (vault.path / "Notes.v2.md").write_text(f"v {round_}")
        for name in ("README", "Old", "Notes.v2.md"):
            vault.trash_path(name, change=AGENT)
    assert sorted(os.listdir(vault.path / ".trash")) == [
        "Notes.v2 1.md",
        "Notes.v2 2.md",
        "Notes.v2.md",
        "Old",
        "Old 1",
        "Old 2",
        "README",
        "README 1",
        "README 2",
    ]
    assert (vault.path / ".trash/README 2").read_text() == "readme 2"
    trashed = vault.trash_path("10-projects", change=AGENT)
    assert trashed.paths == ["10-projects", ".trash/10-projects"] and trashed.is_folder
    assert not vault.trash_path("Inbox.md", change=AGENT).is_folder


def test_links_are_rewritten_in_served_notes_only(vault: Vault) -> None:
    (vault.path / ".indexignore").write_text("private/\n")
    (vault.path / "private").mkdir()
    (vault.path / "private/Mine.md").write_text("[[10-projects/Plan]]\n")
    (vault.path / "Upper.MD").write_text("[[10-projects/Plan]]\n")
    (vault.path / "Latin1.md").write_bytes(b"caf\xe9 [[10-projects/Plan]]\n")
    (vault.path / "Plain.txt").write_text("[[10-projects/Plan]]\n")
    change = vault.move_path("10-projects/Plan.md", "Plan2.md", change=AGENT)
    # the vault's top is walked first: a note there that cannot be read stops nothing below
    assert sorted(change.rewritten) == ["10-projects/Budget.md", "20-areas/Review.md", "Upper.MD"]
    assert (vault.path / "Upper.MD").read_text() == "[[Plan2]]\n"
    assert (vault.path / "private/Mine.md").read_text() == "[[10-projects/Plan]]\n"
    assert (vault.path / "Latin1.md").read_bytes() == b"caf\xe9 [[10-projects/Plan]]\n"
    assert (vault.path / "Plain.txt").read_text() == "[[10-projects/Plan]]\n"


def test_a_note_saved_while_its_links_are_rewritten_keeps_the_save(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultctx.ledger.changes import NoteChanger

    real = NoteChanger._plan_link_rewrites
    budget = vault.path / "10-projects/Budget.md"

    def plan_then_save(self: NoteChanger, moved: dict[str, str]) -> object:
        plans = real(self, moved)
        budget.write_text("the user's save\n")
        return plans

    monkeypatch.setattr(NoteChanger, "_plan_link_rewrites", plan_then_save)
    change = vault.move_path("10-projects/Plan.md", "Plan2.md", change=AGENT)
    assert (
        change.notices[0] == "10-projects/Budget.md changed meanwhile: its links were not rewritten"
    )
    assert change.rewritten == ["20-areas/Review.md"]
    assert change.paths == ["10-projects/Plan.md", "Plan2.md", "20-areas/Review.md"]
    assert budget.read_text() == "the user's save\n"


def test_a_moved_note_whose_own_links_change_is_not_listed_as_rewritten(vault: Vault) -> None:
    change = vault.move_path("10-projects", "p", change=AGENT)
    assert "[[p/Plan#Goals|the goals]]" in (vault.path / "p/Budget.md").read_text()
    assert change.rewritten == ["20-areas/Review.md"]


def test_a_move_that_fails_removes_the_folders_it_made(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultctx.ledger import changes

    def failing(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(changes, "rename", failing)
    (vault.path / "40-archive").mkdir()
    before = tree(vault.path)
    with pytest.raises(OSError, match="No space left"):
        vault.move_path("Inbox.md", "40-archive/new/deeper/Inbox.md", change=AGENT)
    assert tree(vault.path) == before and vault.ledger() == []


def test_a_folder_is_not_moved_where_the_rules_ignore_what_it_holds(vault: Vault) -> None:
    from vaultctx.vault.private_paths import BECOMES_IGNORED_REASON

    (vault.path / ".indexignore").write_text("new/Plan.md\n")
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.move_path("10-projects", "new", change=AGENT)
    assert refused.value.message == (
        f"path refused: 10-projects {BECOMES_IGNORED_REASON}; nothing was changed"
    )
    assert tree(vault.path) == before and vault.ledger() == []
    vault.trash_path("10-projects", change=AGENT)  # deleting lands nothing anywhere
    assert (vault.path / ".trash/10-projects/Plan.md").is_file()


@pytest.mark.parametrize(
    ("operation", "arguments"),
    [
        ("create_note", ("private/New.md", "x")),
        ("replace_note", ("private/Diary.md", "x")),
        ("append_to_note", ("private/Diary.md", "x")),
        ("move_path", ("private/Diary.md", "Diary.md")),
        ("trash_path", ("private/Diary.md",)),
    ],
)
def test_notes_the_vaults_settings_ignore_are_not_the_changers_to_touch(
    operation: str, arguments: tuple[str, ...], vault_dir: Path, tmp_path: Path
) -> None:
    """``ignore`` in the vault's vaultctx.toml hides notes as ``.indexignore`` does: no change
    reads, writes, moves or trashes them."""
    from vaultctx.vault.private_paths import IGNORED_REASON

    (vault_dir / "vaultctx.toml").write_text('ignore = ["private/"]\n')
    (vault_dir / "private").mkdir()
    (vault_dir / "private/Diary.md").write_text("secret\n")
    vault = Vault(vault_dir, db=tmp_path / "index.db")
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        getattr(vault, operation)(*arguments, change=AGENT)
    assert refused.value.message.startswith("path refused: private/")
    assert IGNORED_REASON in refused.value.message
    assert tree(vault.path) == before and vault.ledger() == []


def test_a_note_must_be_of_a_note_type_and_a_folder_only_rule_spares_it(vault: Vault) -> None:
    (vault.path / ".indexignore").write_text("Idea.md/\n")
    calls: tuple[Callable[[], object], ...] = (
        lambda: vault.create_note("run.sh", "echo", change=AGENT),
        lambda: vault.replace_note("run.sh", "echo", change=AGENT),
    )
    for call in calls:
        with pytest.raises(NoteChangeError) as refused:
            call()
        assert refused.value.message == (
            "path refused: run.sh is not a note type vaultctx writes (.md, .txt, .csv, …); "
            "nothing was changed"
        )
    vault.create_note("Idea.md", "# Idea\n", change=AGENT)  # the rule names a folder only
    vault.append_to_note("Idea.md", "more", change=AGENT)
    assert (vault.path / "Idea.md").read_text() == "# Idea\n\nmore"


def test_every_operation_passes_on_the_ledgers_notices(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.ledger.test_failed_steps import user_settings

    vault.append_to_note("Inbox.md", "old", change=AGENT)
    user_settings(tmp_path, monkeypatch, "ledger_max_mb = 0\n")
    capped = Vault(vault.path, db=vault.db_path)
    changes = [
        capped.append_to_note("Inbox.md", "new", change=AGENT),
        capped.edit_note("Inbox.md", "new", "newer", change=AGENT),
        capped.replace_note("Inbox.md", "whole", change=AGENT),
        capped.move_path("Inbox.md", "Outbox.md", change=AGENT),
        capped.trash_path("Outbox.md", change=AGENT),
    ]
    for change in changes:
        assert any("over its cap of 0 MB" in notice for notice in change.notices), change.kind


def test_each_operation_names_its_kind_in_the_change_and_the_record(vault: Vault) -> None:
    made = [
        vault.create_note("New.md", "new", change=AGENT),
        vault.append_to_note("New.md", "more", change=AGENT),
        vault.edit_note("New.md", "more", "less", change=AGENT),
        vault.replace_note("New.md", "whole", change=AGENT),
        vault.move_path("New.md", "Moved.md", change=AGENT),
        vault.trash_path("Moved.md", change=AGENT),
    ]
    kinds = ["create", "append", "edit", "replace", "move", "trash"]
    assert [change.kind for change in made] == kinds
    assert [record.kind for record in reversed(vault.ledger())] == kinds
