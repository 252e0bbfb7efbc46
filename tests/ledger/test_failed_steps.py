"""A step the file system fails midway (a full disk, a file system without hard links) is recorded
as what it left on disk, never as what it meant to do, and never at all when it left nothing; and
``create_note`` as a user sees it: the file, its mode, the record, the refusal.

The file system's failures are injected at the ``os`` calls that put a file in place, for paths
inside the vault only (the ledger's own writes go on)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, NOTES, tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.snapshot import FileState, FolderState
from vaultctx.vault.writes import NoteChangeError, digest

CLI = ChangeContext("batch", source="cli")


def failing_in(root: Path, real: Callable[..., Any], code: int) -> Callable[..., Any]:
    """``real``, except that it fails with ``code`` for a path inside ``root``."""
    inside = str(root.resolve())

    def call(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(inside + os.sep):
            raise OSError(code, os.strerror(code), str(path))
        return real(path, *args, **kwargs)

    return call


@pytest.fixture
def full_disk(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Hard links unsupported and every rename into place failing, in the vault only: a new
    note's name is taken (exclusively, empty) and then cannot be filled."""
    with monkeypatch.context() as patch:
        patch.setattr(os, "link", failing_in(vault.path, os.link, errno.EPERM))
        patch.setattr(os, "replace", failing_in(vault.path, os.replace, errno.ENOSPC))
        yield patch


def test_a_failed_create_that_left_an_empty_note_is_recorded_as_that(
    vault: Vault, full_disk: pytest.MonkeyPatch
) -> None:
    before = tree(vault.path)
    with pytest.raises(OSError, match="No space left"):
        vault.create_note("new/deep/Idea.md", "# Idea\n", change=AGENT)
    full_disk.undo()
    assert (vault.path / "new/deep/Idea.md").read_bytes() == b""
    [record] = vault.ledger()
    assert record.paths == ["new"] and record.kind == "create" and not record.interrupted
    [entry] = record.entries
    empty = FileState(digest(b""), 0)
    assert entry.after == FolderState((("deep", FolderState((("Idea.md", empty),))),))
    vault.undo()
    assert tree(vault.path) == before and vault.ledger() == []


def test_a_failed_create_that_left_nothing_is_not_recorded(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(vault.path)
    with monkeypatch.context() as patch:
        patch.setattr(os, "open", failing_in(vault.path, os.open, errno.ENOSPC))
        with pytest.raises(OSError, match="No space left"):
            vault.create_note("new/deep/Idea.md", "# Idea\n", change=AGENT)
    assert tree(vault.path) == before  # the folders made for it are gone again
    assert vault.ledger() == [] and vault.ledger_unreadable() == []
    assert list((vault.ledger_store().folder / "records").iterdir()) == []
    later = vault.create_note("new/Idea.md", "# Idea\n", change=AGENT)
    assert [record.id for record in vault.ledger()] == [later.record_id]


def test_a_batch_goes_on_after_a_failed_step_and_undo_restores_exactly(
    vault: Vault, full_disk: pytest.MonkeyPatch
) -> None:
    before = tree(vault.path)
    with vault.change_batch(CLI, "template") as batch:
        with pytest.raises(OSError):
            batch.create("new/A.md", "# A\n")
        full_disk.undo()
        batch.create("new/B.md", "# B\n")
        batch.rewrite("Inbox.md", lambda text: text + "more\n")
    assert batch.change is not None and batch.change.record_id
    assert (vault.path / "new/A.md").read_bytes() == b""
    [record] = vault.ledger()
    assert sorted(record.paths) == ["Inbox.md", "new"]
    [new] = [entry for entry in record.entries if entry.path == "new"]
    assert new.after == FolderState(
        (
            ("A.md", FileState(digest(b""), 0)),
            ("B.md", FileState(digest(b"# B\n"), 4)),
        )
    )
    vault.undo()
    assert tree(vault.path) == before


def test_a_failed_rewrite_in_a_batch_is_not_recorded(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(vault.path)
    with vault.change_batch(CLI, "review") as batch:
        batch.create("new/A.md", "# A\n")
        with monkeypatch.context() as patch:
            patch.setattr(os, "replace", failing_in(vault.path, os.replace, errno.ENOSPC))
            with pytest.raises(OSError):
                batch.rewrite("Inbox.md", lambda text: text + "more\n")
    assert (vault.path / "Inbox.md").read_bytes() == before["Inbox.md"]
    [record] = vault.ledger()
    assert record.paths == ["new"]
    vault.undo()
    assert tree(vault.path) == before


def test_create_note_writes_the_bytes_with_the_default_mode_and_records_them(
    vault: Vault,
) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    text = "# Idée\n\nÜber alles.\n"
    change = vault.create_note("10-projects/Idée.md", text, change=AGENT)
    path = vault.path / "10-projects/Idée.md"
    assert path.read_bytes() == text.encode("utf-8")
    assert path.stat().st_mode & 0o7777 == 0o666 & ~umask
    assert change.kind == "create" and change.paths == ["10-projects/Idée.md"]
    assert change.record_id is not None and change.notices == []
    [record] = vault.ledger()
    assert record.id == change.record_id and record.kind == "create"
    assert record.paths == ["10-projects/Idée.md"]
    [diff] = vault.ledger_diffs(record)
    assert (diff.path, diff.change) == ("10-projects/Idée.md", "added")
    assert "+Über alles.\n" in diff.diff
    assert vault.ledger_store().blob(digest(text.encode("utf-8"))) == text.encode("utf-8")


def test_create_note_refuses_what_is_there_and_says_how_to_go_on(vault: Vault) -> None:
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.create_note("10-projects/Plan.md", "x", change=AGENT)
    assert refused.value.message == "File already exists: 10-projects/Plan.md"
    assert refused.value.suggestion == (
        "choose another path, or change the existing note with edit_note"
    )
    assert tree(vault.path) == before and vault.ledger() == []


def test_create_note_refuses_a_bad_source_before_anything(vault: Vault) -> None:
    with pytest.raises(ValueError, match="source must be one of"):
        vault.create_note("New.md", "x", change=ChangeContext("x", source="web"))
    assert not (vault.path / "New.md").exists()


def user_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    config = tmp_path / "config"
    monkeypatch.setattr(platformdirs, "user_config_dir", lambda name: str(config / name))
    (config / "vaultctx").mkdir(parents=True)
    (config / "vaultctx" / "vaultctx.toml").write_text(text)


def test_create_note_refuses_content_over_the_limit(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_settings(tmp_path, monkeypatch, "max_file_bytes = 10\n")
    vault = Vault(make_vault(tmp_path / "small", NOTES), db=tmp_path / "small.db")
    with pytest.raises(NoteChangeError) as refused:
        vault.create_note("New.md", "x" * 11, change=AGENT)
    assert refused.value.message == (
        "The content is too large: 11 bytes, over the limit of 10 bytes (`max_file_bytes`); "
        "nothing was changed"
    )
    vault.create_note("New.md", "x" * 10, change=AGENT)
    assert (vault.path / "New.md").read_text() == "x" * 10


def test_create_note_passes_on_the_ledgers_notices(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = vault.ledger_store()
    vault.append_to_note("Inbox.md", "old", change=AGENT)
    user_settings(tmp_path, monkeypatch, "ledger_max_mb = 0\n")
    capped = Vault(vault.path, db=vault.db_path)
    change = capped.create_note("New.md", "new", change=AGENT)
    assert any("over its cap of 0 MB" in notice for notice in change.notices)
    assert len(store.records()) == 2


def test_a_failed_step_in_a_folder_with_spaces_is_recorded_at_its_path(
    vault: Vault, full_disk: pytest.MonkeyPatch
) -> None:
    (vault.path / "My notes").mkdir()
    before = tree(vault.path)
    with pytest.raises(OSError, match="No space left"):
        vault.create_note("My notes/New idea.md", "# Idea\n", change=AGENT)
    full_disk.undo()
    [record] = vault.ledger()
    assert record.paths == ["My notes/New idea.md"]
    assert record.entries[0].after == FileState(digest(b""), 0)
    vault.undo()
    assert tree(vault.path) == before


def test_a_note_appearing_between_the_check_and_the_write_is_kept(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is made blind to what is there (as if the user saved the note right after it):
    the write itself refuses to replace anything, names the note, and nothing is recorded."""
    before = tree(vault.path)
    with monkeypatch.context() as patch:
        patch.setattr(os.path, "lexists", lambda path: False)
        with pytest.raises(NoteChangeError) as refused:
            vault.create_note("10-projects/Plan.md", "# Mine\n", change=AGENT)
    assert refused.value.message == "File already exists: 10-projects/Plan.md"
    assert tree(vault.path) == before and vault.ledger() == []
