"""A record holds any name the file system holds, one unreadable record blocks no other, a stored
path is read back only in its one canonical spelling, and no change is made whose record cannot
be written first."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import make_vault
from tests.ledger.conftest import AGENT, NOTES, isolate_data_dir, tree
from tests.ledger.test_cli import run_cli
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.ledger import store as store_module

BACKSLASH = "AC\\DC.md"
TAB = "tab\tname.md"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_data_dir(tmp_path / "data", monkeypatch)


@pytest.fixture
def vault(tmp_path: Path, data_dir: Path) -> Vault:
    notes = {
        **NOTES,
        "notes/Plan.md": "# Plan\n",
        BACKSLASH: "# AC/DC\n\nSee [[notes/Plan]].\n",
        TAB: "# Tab\n\nSee [[notes/Plan]].\n",
    }
    return Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "index.db")


def records_folder(vault: Vault) -> Path:
    return vault.ledger_store().folder / "records"


def test_a_backslash_or_tab_name_is_recorded_and_every_later_change_too(
    vault: Vault, data_dir: Path
) -> None:
    original = tree(vault.path)
    moved = vault.move_path("notes/Plan.md", "archive/Plan.md", change=AGENT)
    assert sorted(moved.rewritten) == [BACKSLASH, TAB]
    assert "[[archive/Plan]]" in (vault.path / BACKSLASH).read_text()
    later = vault.append_to_note("Inbox.md", "later", change=AGENT)
    listed = vault.ledger()
    assert [record.id for record in listed] == [later.record_id, moved.record_id]
    assert {BACKSLASH, TAB} <= set(listed[1].paths)
    assert vault.ledger_unreadable() == []
    shown = run_cli(vault, data_dir, "ledger")
    assert shown.returncode == 0 and str(moved.record_id) in shown.stdout, shown.stderr
    vault.undo()
    vault.undo()
    assert tree(vault.path) == original


@pytest.mark.skipif(sys.platform != "linux", reason="names that are not UTF-8 are Linux's")
def test_a_folder_holding_any_name_is_trashed_and_restored(vault: Vault) -> None:
    folder = vault.path / "odd"
    folder.mkdir()
    (folder / BACKSLASH).write_text("back\n")
    (folder / TAB).write_text("tab\n")
    with open(os.fsencode(folder) + b"/caf\xe9.md", "wb") as handle:  # Latin-1, not UTF-8
        handle.write(b"latin\n")
    original = tree(vault.path)
    change = vault.trash_path("odd", change=AGENT)
    [record] = vault.ledger()
    assert record.id == change.record_id
    vault.undo()
    assert tree(vault.path) == original


def test_one_unreadable_record_blocks_no_other(vault: Vault, data_dir: Path) -> None:
    first = vault.append_to_note("Inbox.md", "one", change=AGENT)
    second = vault.append_to_note("notes/Plan.md", "two", change=AGENT)
    [damaged] = records_folder(vault).glob(f"*-{first.record_id}.json")
    damaged.write_text("{ not json")
    assert [record.id for record in vault.ledger()] == [second.record_id]
    [bad] = vault.ledger_unreadable()
    assert bad.id == first.record_id and bad.why
    third = vault.append_to_note("Inbox.md", "three", change=AGENT)  # still recorded
    assert [record.id for record in vault.ledger()] == [third.record_id, second.record_id]
    listed = run_cli(vault, data_dir, "ledger")
    assert listed.returncode == 0, listed.stderr
    assert f"{first.record_id}  UNREADABLE" in listed.stdout
    vault.undo()
    vault.undo()
    assert (vault.path / "notes/Plan.md").read_text() == "# Plan\n"
    dropped = run_cli(vault, data_dir, "ledger", "drop", str(first.record_id))
    assert dropped.returncode == 0, dropped.stderr
    assert vault.ledger_unreadable() == [] and vault.ledger() == []


@pytest.mark.parametrize(
    "stored",
    [
        "a//b.md",
        "./Inbox.md",
        "Inbox.md/",
        "/Inbox.md",
        "..",
        "a/../Inbox.md",
        "%49nbox.md",
        "Inbox%2Fx.md",
        "x%00.md",
        "%2E%2E",
        "",
    ],
)
def test_a_path_in_any_but_its_canonical_spelling_is_refused_on_read(
    vault: Vault, stored: str
) -> None:
    change = vault.append_to_note("Inbox.md", "x", change=AGENT)
    [path] = records_folder(vault).glob(f"*-{change.record_id}.json")
    raw = json.loads(path.read_text())
    raw["entries"][0]["path"] = stored
    path.write_text(json.dumps(raw))
    assert vault.ledger() == []
    [bad] = vault.ledger_unreadable()
    assert bad.id == change.record_id
    with pytest.raises(VaultctxError):
        vault.undo(change.record_id)


def test_a_format_1_ledger_stays_readable_and_undoable(vault: Vault) -> None:
    """Users have ledgers from before the encoding: raw names, no version in the record."""
    folder = vault.ledger_store().folder
    (folder / "records").mkdir(parents=True)
    (folder / "blobs").mkdir()
    (folder / store_module.MARKER_NAME).write_text(
        json.dumps({"format": store_module.FORMAT, "version": 1, "vault": str(vault.path)})
    )
    before, after = b"# AC/DC\n\nSee [[notes/Plan]].\n", b"# AC/DC\n\nReplaced.\n"
    for data in (before, after):
        (folder / "blobs" / hashlib.sha256(data).hexdigest()).write_bytes(data)
    (vault.path / BACKSLASH).write_bytes(after)
    state = {"kind": "file", "size": 0, "mode": 0o644}
    record = {
        "id": "deadbeef",
        "label": "replace_note AC\\DC.md",
        "time": "",
        "conversation_id": None,
        "source": "agent",
        "kind": "replace",
        "paths": [BACKSLASH],
        "seq": 1,
        "created_at": 1.0e9,
        "entries": [
            {
                "path": BACKSLASH,
                "before": {
                    **state,
                    "sha256": hashlib.sha256(before).hexdigest(),
                    "size": len(before),
                },
                "after": {**state, "sha256": hashlib.sha256(after).hexdigest(), "size": len(after)},
            }
        ],
    }
    (folder / "records" / "00000001-deadbeef.json").write_text(json.dumps(record))
    [read] = vault.ledger()
    assert read.id == "deadbeef" and read.paths == [BACKSLASH]
    vault.undo()
    assert (vault.path / BACKSLASH).read_bytes() == before


def test_a_change_whose_record_cannot_be_written_is_not_made(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault.append_to_note("10-projects/Budget.md", "recorded", change=AGENT)  # a ledger exists
    original = tree(vault.path)

    def disk_full(path: Path, data: bytes, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module, "_write_private", disk_full)
    with pytest.raises(VaultctxError):
        vault.replace_note("Inbox.md", "# Replaced\n", change=AGENT)
    with pytest.raises(VaultctxError):
        vault.move_path("notes/Plan.md", "archive/Plan.md", change=AGENT)
    with pytest.raises(VaultctxError), vault.change_batch(AGENT, "para") as batch:
        batch.create("new/Idea.md", "# Idea\n")
    assert tree(vault.path) == original


@pytest.mark.parametrize("confirm_changes", [False, True])
def test_an_agent_turn_moving_a_note_an_odd_name_links_is_recorded_with_confirm_on_and_off(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, confirm_changes: bool
) -> None:
    """The issue's case through the agent itself: the move, then every later change of the turn,
    each recorded, each undone."""
    import asyncio

    from tests.agent.scripted_model import Call, ScriptedModel
    from tests.agent.session_support import no_retrieval, scripted_session
    from vaultctx.agent.confirm import ConfirmRequest, Decision

    async def always(request: ConfirmRequest) -> Decision:
        return "always"

    no_retrieval(monkeypatch)
    original = tree(vault.path)
    move = Call(
        "move_file", {"source_path": "notes/Plan.md", "destination_path": "archive/Plan.md"}
    )
    append = Call("append_to_note", {"path": "Inbox.md", "content": "after the move"})
    script = ScriptedModel([[move], [append]])
    session = scripted_session(
        vault, script, confirm_changes=confirm_changes, confirm=always if confirm_changes else None
    )
    asyncio.run(session.ask("tidy up", lambda _: None))
    assert "[[archive/Plan]]" in (vault.path / BACKSLASH).read_text()
    records = vault.ledger()
    assert len(records) == 2 and BACKSLASH in records[1].paths
    assert vault.ledger_unreadable() == []
    vault.undo()
    vault.undo()
    assert tree(vault.path) == original
