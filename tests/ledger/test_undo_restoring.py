"""Undo puts back each path as it was before the change, byte for byte and with its mode: a
nested folder the change removed comes back whole, what the change created goes, and a link
(which undo never creates or removes) stops it with the fix."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.ledger import batch as batch_module
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.snapshot import MISSING, FolderState, LinkState, State, file_state
from vaultctx.vault.writes import (
    NoteChangeError,
    create_file,
    digest,
    remove_file,
    replace_file,
)
from vaultctx.vault.writes import exists as real_exists

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


def test_a_folder_the_batch_found_there_after_all_is_undone_inside_it(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``create_folder`` saw no folder, then one was there (made meanwhile): the batch's record
    roots at that folder, before and after, and undo turns each thing inside it back (a note
    created goes with its new subfolder, one rewritten gets its bytes and mode back, one trashed
    returns) and leaves the folder and the rest of what it holds."""
    target = vault_dir / "10-projects"
    monkeypatch.setattr(
        batch_module, "exists", lambda path: False if path == target else real_exists(path)
    )
    (target / "Plan.md").chmod(0o600)
    (target / "Keep.md").write_text("# keep\n")
    before = tree(vault_dir)
    with vault.change_batch(CLI, "test") as batch:
        assert batch.create_folder("10-projects") is True
        batch.create("10-projects/New.md", "# new\n")
        batch.create("10-projects/Sub/Deep.md", "# deep\n")
        assert batch.rewrite("10-projects/Plan.md", lambda text: text + "more\n")
        batch.trash("10-projects/Budget.md")
    [record] = vault.ledger()
    [entry] = [e for e in record.entries if e.path == "10-projects"]
    assert isinstance(entry.before, FolderState) and isinstance(entry.after, FolderState)
    vault.undo()
    assert tree(vault_dir) == before
    assert stat.S_IMODE(os.lstat(target / "Plan.md").st_mode) == 0o600


def test_a_link_that_a_failed_step_left_in_a_new_folder_stops_undo_with_the_fix(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step fails while another program puts a link into the folder the step made: the record
    holds what the step left, link included, and undo, which never removes a link, names it and
    says what to do, leaving it in place."""
    real_open = os.open
    staged_in = str(vault_dir / "New")

    def failing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(staged_in + os.sep):
            os.symlink("../Inbox.md", vault_dir / "New" / "link.md")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, *args, **kwargs)

    with vault.change_batch(CLI, "test") as batch, monkeypatch.context() as patch:
        patch.setattr(os, "open", failing)
        with pytest.raises(OSError):
            batch.create("New/a.md", "# a\n")
    [record] = vault.ledger()
    assert record.entries[0].after == FolderState((("link.md", LinkState("../Inbox.md")),))
    with pytest.raises(NoteChangeError) as refused:
        vault.undo()
    assert refused.value.message == "New/link.md is a link; undo never removes one"
    assert refused.value.suggestion == "remove it yourself"
    assert os.readlink(vault_dir / "New" / "link.md") == "../Inbox.md"


def undo_racing(vault: Vault, monkeypatch: pytest.MonkeyPatch, name: str, racing: Any) -> str:
    """Undo with ``vault.writes``' ``name`` as undo calls it replaced by ``racing`` (a save by
    the user first, then the real call); returns the refusal's message."""
    monkeypatch.setattr(f"vaultctx.ledger.undo.{name}", racing)
    with pytest.raises(NoteChangeError) as refused:
        vault.undo()
    return refused.value.message


def test_a_note_saved_while_undo_removes_it_is_kept_and_named(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with vault.change_batch(CLI, "test") as batch:
        batch.create("New/Sub/a.md", "# a\n")

    def saved_first(path: Path, *, expected: bytes, shown: str) -> None:
        path.write_text("# a, saved by the user\n")
        remove_file(path, expected=expected, shown=shown)

    message = undo_racing(vault, monkeypatch, "remove_file", saved_first)
    assert message == "New/Sub/a.md changed meanwhile, so it was not removed"
    assert (vault_dir / "New/Sub/a.md").read_text() == "# a, saved by the user\n"


def test_a_note_made_while_undo_brings_a_folder_back_is_kept_and_named(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.trash_path("10-projects", change=AGENT)

    def made_first(path: Path, data: bytes, mode: int, shown: str) -> None:
        if not path.exists():
            path.write_text("# made by the user\n")
        create_file(path, data, mode, shown)

    message = undo_racing(vault, monkeypatch, "create_file", made_first)
    assert message == "File already exists: 10-projects/Budget.md"
    assert (vault_dir / "10-projects/Budget.md").read_text() == "# made by the user\n"


def test_a_link_gone_during_a_failed_step_is_not_made_again_by_undo(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch's record roots at a folder holding a link (the folder was found there after
    all); a step fails while another program removes the link. Undo, which never creates a
    link, names it and says what to do."""
    target = vault_dir / "10-projects"
    os.symlink("../Inbox.md", target / "Link.md")
    monkeypatch.setattr(
        batch_module, "exists", lambda path: False if path == target else real_exists(path)
    )
    real_open = os.open

    def failing(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).startswith(str(target) + os.sep) and str(path).endswith(".vaultctx-tmp"):
            (target / "Link.md").unlink()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, *args, **kwargs)

    with vault.change_batch(CLI, "test") as batch, monkeypatch.context() as patch:
        assert batch.create_folder("10-projects") is True
        patch.setattr(os, "open", failing)
        with pytest.raises(OSError):
            batch.create("10-projects/New.md", "# new\n")
    [record] = vault.ledger()
    [entry] = record.entries
    assert isinstance(entry.before, FolderState)
    assert dict(entry.before.children)["Link.md"] == LinkState("../Inbox.md")
    with pytest.raises(NoteChangeError) as refused:
        vault.undo()
    assert refused.value.message == "10-projects/Link.md was a link; undo never creates one"
    assert refused.value.suggestion == "recreate it yourself"
    assert not os.path.lexists(target / "Link.md")


def test_a_note_saved_while_undo_puts_its_old_bytes_back_is_kept_and_named(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.replace_note("Inbox.md", "# other\n", change=AGENT)

    def saved_first(path: Path, data: bytes, *, expected: bytes, mode: int, shown: str) -> None:
        path.write_text("# saved by the user\n")
        replace_file(path, data, expected=expected, mode=mode, shown=shown)

    message = undo_racing(vault, monkeypatch, "replace_file", saved_first)
    assert message == "Inbox.md changed while it was being edited; nothing was changed"
    assert (vault_dir / "Inbox.md").read_text() == "# saved by the user\n"
    assert len(vault.ledger()) == 1  # still recorded: undo can be tried again


def interrupted_record(vault: Vault, roots: dict[str, State], data: bytes) -> None:
    """A journal left by a killed change: each root was missing and became ``roots[root]``."""
    store = vault.ledger_store()
    with store.locked():
        journal = store.begin(label="killed", conversation_id=None, source="cli", kind="para")
        journal.step(
            [(root, MISSING, after) for root, after in roots.items()], {digest(data): data}
        )
        journal.close()


def test_the_staged_copy_in_a_folder_named_with_a_space_goes_with_the_undo(
    vault: Vault, vault_dir: Path
) -> None:
    data = b"# half\n"
    interrupted_record(
        vault, {"My notes": FolderState((("Half.md", file_state(data, 0o644)),))}, data
    )
    (vault_dir / "My notes").mkdir()
    (vault_dir / "My notes" / "Half.md").write_bytes(data)
    (vault_dir / "My notes" / ".Half.md.k3j9x0qa.vaultctx-tmp").write_bytes(b"# half, staged")
    assert vault.undo().record.interrupted
    assert not (vault_dir / "My notes").exists()


def test_a_folder_the_killed_step_never_made_does_not_hide_the_other_staged_copies(
    vault: Vault, vault_dir: Path
) -> None:
    """The last step was journalled but not made (its folder ``new`` does not exist), while other
    folders hold staged copies: every one of those is still found and removed. (Folders are
    looked at in a set's order, so a search that stopped at the missing one would miss the
    folders after it: with eight of them, all but one order in nine shows it.)"""
    data = b"# half\n"
    half = FolderState((("Half.md", file_state(data, 0o644)),))
    folders = [f"f{number}" for number in range(8)]
    interrupted_record(vault, {"new": half, **dict.fromkeys(folders, half)}, data)
    for folder in folders:
        (vault_dir / folder).mkdir()
        (vault_dir / folder / "Half.md").write_bytes(data)
        (vault_dir / folder / ".Half.md.k3j9x0qa.vaultctx-tmp").write_bytes(b"# staged")
    before_change = tree(vault_dir)
    assert vault.undo().record.interrupted
    assert all(not (vault_dir / folder).exists() for folder in folders)
    assert len(before_change) - len(tree(vault_dir)) == 3 * len(folders)


def test_staged_copies_deep_in_a_new_folder_and_beside_a_note_go_with_the_undo(
    vault: Vault, vault_dir: Path
) -> None:
    data = b"# half\n"
    half = file_state(data, 0o644)
    deep = FolderState((("sub", FolderState((("Half.md", half),))),))
    interrupted_record(vault, {"new": deep, "Half.md": half}, data)
    (vault_dir / "new" / "sub").mkdir(parents=True)
    for folder in (vault_dir / "new" / "sub", vault_dir):
        (folder / "Half.md").write_bytes(data)
        (folder / ".Half.md.k3j9x0qa.vaultctx-tmp").write_bytes(b"# staged")
    assert vault.undo().record.interrupted
    assert not (vault_dir / "new").exists()
    assert not (vault_dir / "Half.md").exists()
    assert not (vault_dir / ".Half.md.k3j9x0qa.vaultctx-tmp").exists()


def test_an_interrupted_change_whose_last_step_was_not_made_is_undone_from_before_that_step(
    vault: Vault, vault_dir: Path
) -> None:
    """Steps: Inbox.md edited, New.md created, Inbox.md edited again (journalled, then killed
    before it was made). Inbox.md holds the first edit, which is the state before the last step:
    undo accepts it and puts back the original bytes; New.md, not in the last step, goes."""
    inbox = vault_dir / "Inbox.md"
    original = inbox.read_bytes()
    first, second, new = original + b"one\n", original + b"two\n", b"# new\n"
    states = {data: file_state(data, 0o644) for data in (original, first, second, new)}
    store = vault.ledger_store()
    with store.locked():
        journal = store.begin(label="killed", conversation_id=None, source="cli", kind="para")
        blobs = {digest(data): data for data in states}
        journal.step([("Inbox.md", states[original], states[first])], blobs)
        journal.step([("New.md", MISSING, states[new])], blobs)
        journal.step([("Inbox.md", states[first], states[second])], blobs)
        journal.close()
    inbox.write_bytes(first)
    (vault_dir / "New.md").write_bytes(new)
    report = vault.undo()
    assert report.record.interrupted and report.notices == [
        "this change was interrupted before it finished; the steps it made are taken back"
    ]
    assert inbox.read_bytes() == original and not (vault_dir / "New.md").exists()


def test_a_staged_copy_that_cannot_be_removed_does_not_stop_the_undo(
    vault: Vault, vault_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staged copy is only the killed change's leftover: when it cannot be removed the undo
    still takes the change back, and the copy stays (nothing of the user's is touched)."""
    data = b"# half\n"
    interrupted_record(vault, {"Half.md": file_state(data, 0o644)}, data)
    (vault_dir / "Half.md").write_bytes(data)
    staged = vault_dir / ".Half.md.k3j9x0qa.vaultctx-tmp"
    staged.write_bytes(b"# staged")
    real_unlink = os.unlink

    def refusing(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path) == staged:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refusing)
    assert vault.undo().record.interrupted
    assert not (vault_dir / "Half.md").exists() and staged.exists()
    assert vault.ledger() == []
