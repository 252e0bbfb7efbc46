"""The ledger folder's own guards, word for word: a folder that is not ours, a marker of a newer
format, a content missing or damaged, the retention notices; and the diffs ``ledger show``
prints (no newline at the end, binary content, removed files)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs
import pytest

from tests.ledger.conftest import AGENT
from vaultctx.api import Vault
from vaultctx.ledger.snapshot import FolderState, file_state
from vaultctx.ledger.store import LedgerError, NotALedgerError
from vaultctx.vault.writes import digest

SUFFIX = (
    ", so it is not a vaultctx change ledger; vaultctx never overwrites or deletes what it did "
    "not create"
)


def refused_as_foreign(vault: Vault) -> NotALedgerError:
    before = vault.path.joinpath("Inbox.md").read_bytes()
    with pytest.raises(NotALedgerError) as refused:
        vault.append_to_note("Inbox.md", "x", change=AGENT)
    folder = vault.ledger_store().folder
    assert refused.value.suggestion == f"move it out of {folder.parent} and try again"
    assert vault.path.joinpath("Inbox.md").read_bytes() == before
    return refused.value


def test_a_folder_with_files_but_no_marker(vault: Vault) -> None:
    folder = vault.ledger_store().folder
    folder.mkdir(parents=True)
    (folder / "thesis.txt").write_text("mine")
    assert refused_as_foreign(vault).message == f"{folder} holds files but no ledger marker{SUFFIX}"
    assert sorted(p.name for p in folder.iterdir()) == ["thesis.txt"]


def test_an_empty_folder_is_taken_as_a_new_ledger(vault: Vault) -> None:
    folder = vault.ledger_store().folder
    folder.mkdir(parents=True)
    assert vault.ledger() == []
    change = vault.append_to_note("Inbox.md", "x", change=AGENT)
    assert [record.id for record in vault.ledger()] == [change.record_id]
    marker = json.loads((folder / "vaultctx-ledger.json").read_text())
    assert marker == {"format": "vaultctx-ledger", "version": 2, "vault": str(vault.path.resolve())}


def test_a_file_in_place_of_the_folder(vault: Vault) -> None:
    folder = vault.ledger_store().folder
    folder.parent.mkdir(parents=True)
    folder.write_text("mine")
    message = refused_as_foreign(vault).message
    assert message == f"{folder} is not a folder (a file or a symbolic link is there){SUFFIX}"
    assert folder.read_text() == "mine"


def test_a_link_in_place_of_the_folder(vault: Vault, tmp_path: Path) -> None:
    folder = vault.ledger_store().folder
    folder.parent.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    folder.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    message = refused_as_foreign(vault).message
    assert message == f"{folder} is not a folder (a file or a symbolic link is there){SUFFIX}"
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_folder_of_another_user(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    """Someone else's ledger (a shared machine, a restored backup) is never written to: its
    records would name changes this user never made. Not being that user is simulated by the
    uid this process reports, as tests/security/test_config_writers.py does."""
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    folder = vault.ledger_store().folder
    owner = folder.stat().st_uid
    records = sorted(p.name for p in folder.rglob("*"))
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    message = refused_as_foreign(vault).message
    assert message == f"{folder} belongs to another user (uid {owner}){SUFFIX}"
    assert sorted(p.name for p in folder.rglob("*")) == records


def test_markers_that_are_not_ours(vault: Vault) -> None:
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    folder = vault.ledger_store().folder
    marker = folder / "vaultctx-ledger.json"
    marker.write_text("{broken")
    message = refused_as_foreign(vault).message
    assert message.startswith(f"{folder} has an unreadable marker vaultctx-ledger.json (")
    assert message.endswith(SUFFIX)
    for other in ({"format": "something-else", "version": 2}, ["vaultctx-ledger"]):
        marker.write_text(json.dumps(other))
        assert refused_as_foreign(vault).message == (
            f"{folder} has a vaultctx-ledger.json that is not a vaultctx ledger's{SUFFIX}"
        )


def test_a_ledger_of_a_newer_format_is_left_to_that_version(vault: Vault) -> None:
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    folder = vault.ledger_store().folder
    (folder / "vaultctx-ledger.json").write_text(
        json.dumps({"format": "vaultctx-ledger", "version": 3})
    )
    with pytest.raises(LedgerError) as refused:
        vault.ledger()
    assert refused.value.message == (
        f"the change ledger {folder} was written by a newer version of vaultctx (format 3)"
    )
    assert refused.value.suggestion == "use that version for `vaultctx undo`, or upgrade vaultctx"
    assert not isinstance(refused.value, NotALedgerError)


def test_a_format_1_marker_is_rewritten_on_the_next_change(vault: Vault) -> None:
    first = vault.append_to_note("Inbox.md", "x", change=AGENT)
    marker = vault.ledger_store().folder / "vaultctx-ledger.json"
    marker.write_text(json.dumps({"format": "vaultctx-ledger", "version": 1}))
    assert [record.id for record in vault.ledger()] == [first.record_id]
    assert json.loads(marker.read_text())["version"] == 1  # reading rewrites nothing
    vault.append_to_note("Inbox.md", "y", change=AGENT)
    assert json.loads(marker.read_text())["version"] == 2
    assert len(vault.ledger()) == 2


def test_a_missing_or_damaged_content_names_itself_and_the_way_out(vault: Vault) -> None:
    change = vault.replace_note("Inbox.md", "replaced\n", change=AGENT)
    [record] = vault.ledger()
    blobs = vault.ledger_store().folder / "blobs"
    sha = digest(b"replaced\n")
    (blobs / sha).write_bytes(b"tampered\n")
    with pytest.raises(LedgerError) as damaged:
        vault.ledger_diffs(record)
    assert damaged.value.message == f"the content {sha[:12]}… in the change ledger is damaged"
    assert damaged.value.suggestion == (
        f"this change cannot be undone or shown; its files are in {blobs}"
    )
    (blobs / sha).unlink()
    with pytest.raises(LedgerError) as missing:
        vault.undo()
    assert missing.value.message == (
        f"the change ledger is missing the content {sha[:12]}… (No such file or directory)"
    )
    assert missing.value.suggestion == (
        "this change cannot be undone or shown; discard its record with `vaultctx ledger drop ID`"
    )
    assert (vault.path / "Inbox.md").read_text() == "replaced\n"
    assert [r.id for r in vault.ledger()] == [change.record_id]


def test_diffs_mark_a_missing_newline_and_leave_binary_content_out(vault: Vault) -> None:
    (vault.path / "Bare.md").write_bytes(b"one\ntwo")
    vault.replace_note("Bare.md", "one\nthree", change=AGENT)
    [diff] = vault.ledger_diffs(vault.ledger()[0])
    assert diff.as_dict() == {
        "path": "Bare.md",
        "change": "modified",
        "diff": (
            "--- a/Bare.md\n+++ b/Bare.md\n@@ -1,2 +1,2 @@\n one\n-two\n"
            "\\ No newline at end of file\n+three\n\\ No newline at end of file\n"
        ),
    }
    (vault.path / "Blob.md").write_bytes(b"\xff\xfe binary")
    vault.replace_note("Blob.md", "text now\n", change=AGENT)
    [binary] = vault.ledger_diffs(vault.ledger()[0])
    assert (binary.path, binary.change, binary.diff) == ("Blob.md", "modified", "")
    vault.trash_path("Bare.md", change=AGENT)
    diffs = vault.ledger_diffs(vault.ledger()[0])
    assert sorted((d.path, d.change) for d in diffs) == [
        (".trash/Bare.md", "added"),
        ("Bare.md", "removed"),
    ]
    [removed] = [d for d in diffs if d.path == "Bare.md"]
    assert (
        removed.diff == "--- a/Bare.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-three\n"
        "\\ No newline at end of file\n"
    )
    report = vault.undo(dry_run=True)
    assert sorted((d.path, d.change) for d in report.diffs) == [
        (".trash/Bare.md", "removed"),
        ("Bare.md", "added"),
    ]


def test_retention_notices_word_for_word(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = vault.ledger_store().folder / "records"
    vault.append_to_note("Inbox.md", "old", change=AGENT)
    for path in records.glob("*.json"):
        raw = json.loads(path.read_text())
        raw["created_at"] -= 8 * 86_400.0
        path.write_text(json.dumps(raw))
    config = tmp_path / "config"
    (config / "vaultctx").mkdir(parents=True)
    (config / "vaultctx" / "vaultctx.toml").write_text("ledger_max_mb = 0\nledger_keep_days = 3\n")
    with monkeypatch.context() as patch:
        patch.setattr(platformdirs, "user_config_dir", lambda name: str(config / name))
        capped = Vault(vault.path, db=vault.db_path)
    change = capped.append_to_note("Inbox.md", "young", change=AGENT)
    assert change.notices == [
        "the change ledger dropped its 1 oldest change(s), older than 3 days, to stay under "
        "its cap of 0 MB (`ledger_max_mb`)",
        "the change ledger holds 0 MB, over its cap of 0 MB; the changes of the last 3 days "
        "are kept anyway (discard one with `vaultctx ledger drop ID`, or raise `ledger_max_mb`)",
    ]
    assert [r.id for r in capped.ledger()] == [change.record_id]


def test_a_folder_entry_diffs_only_its_changed_files(vault: Vault) -> None:
    """One entry may hold a folder whose first files did not change: every later file that did
    is still shown."""
    store = vault.ledger_store()
    same, old, new = b"same\n", b"old\n", b"new\n"
    blobs = {digest(data): data for data in (same, old, new)}

    def folder(last: bytes) -> FolderState:
        return FolderState((("a.md", file_state(same, 0o644)), ("b.md", file_state(last, 0o644))))

    with store.locked():
        journal = store.begin(label="interrupted", conversation_id=None, source="cli", kind="x")
        journal.step([("dir", folder(old), folder(new))], blobs)
        journal.close()
    [diff] = vault.ledger_diffs(vault.ledger()[0])
    assert (diff.path, diff.change) == ("dir/b.md", "modified")
    assert diff.diff == "--- a/dir/b.md\n+++ b/dir/b.md\n@@ -1 +1 @@\n-old\n+new\n"
