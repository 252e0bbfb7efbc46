"""What ``vaultctx ledger`` (and ``--json``) reads back: each record as stored, as listed, by id,
and one that cannot be read, in this process (the CLI's tests run it in a subprocess)."""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

import pytest

from tests.ledger.conftest import AGENT
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.store import LedgerError, RecordNotFoundError
from vaultctx.vault.writes import digest


def records_folder(vault: Vault) -> Path:
    return vault.ledger_store().folder / "records"


def test_a_record_is_listed_with_every_field_the_json_listing_shows(vault: Vault) -> None:
    started = time.time()
    change = vault.create_note("30-new/Idea.md", "# Idea\n", change=AGENT)
    [record] = vault.ledger()
    listed = record.as_dict()
    stamp = listed.pop("time")
    assert listed == {
        "id": change.record_id,
        "label": "test change",
        "conversation_id": "c-1",
        "source": "agent",
        "kind": "create",
        "paths": ["30-new"],
        "interrupted": False,
    }
    when = dt.datetime.fromisoformat(stamp)
    assert when.tzinfo is not None and when.microsecond == 0  # local, with offset, to the second
    assert started - 1 <= when.timestamp() <= time.time() + 1
    assert record.seq == 1 and record.created_at >= started - 1


def test_the_record_file_holds_the_format_and_every_field(vault: Vault) -> None:
    cli = ChangeContext("todo add", conversation_id=None, source="cli")
    vault.append_to_note("Inbox.md", "more", change=AGENT)
    change = vault.replace_note("10-projects/Plan.md", "# New plan\n", change=cli)
    [newest, first] = vault.ledger()
    assert newest.id == change.record_id and newest.seq == first.seq + 1 == 2
    [stored_file] = records_folder(vault).glob(f"00000002-{change.record_id}.json")
    stored = json.loads(stored_file.read_bytes())
    old = (b"# Plan\n\n## Goals\nShip the ledger.\n", b"# New plan\n")
    assert {k: v for k, v in stored.items() if k not in ("created_at", "entries")} == {
        "version": 2,
        "id": change.record_id,
        "label": "todo add",
        "conversation_id": None,
        "source": "cli",
        "kind": "replace",
        "seq": 2,
    }
    assert abs(stored["created_at"] - newest.created_at) < 1e-6
    [entry] = stored["entries"]
    assert entry["path"] == "10-projects/Plan.md"
    mode = (vault.path / "10-projects/Plan.md").stat().st_mode & 0o7777
    assert entry["before"] == {"kind": "file", "sha256": digest(old[0]), "size": 34, "mode": mode}
    assert entry["after"] == {"kind": "file", "sha256": digest(old[1]), "size": 11, "mode": mode}
    assert newest.as_dict()["conversation_id"] is None and newest.as_dict()["source"] == "cli"


def test_get_finds_a_record_by_its_id_in_any_case_and_with_spaces(vault: Vault) -> None:
    first = vault.append_to_note("Inbox.md", "one", change=AGENT)
    second = vault.append_to_note("Inbox.md", "two", change=AGENT)
    assert first.record_id and second.record_id
    assert vault.ledger_record(f"  {first.record_id.upper()}\n").id == first.record_id
    assert vault.ledger_record(second.record_id).id == second.record_id


def test_get_and_drop_say_when_no_record_has_the_id(vault: Vault) -> None:
    vault.append_to_note("Inbox.md", "one", change=AGENT)
    for look_up in (vault.ledger_record, vault.ledger_drop):
        with pytest.raises(RecordNotFoundError) as missing:
            look_up("Nope")
        assert missing.value.message == (
            f"no change 'Nope' in the ledger of {vault.ledger_store().vault}"
        )
        assert missing.value.suggestion == "list the recorded changes with `vaultctx ledger`"
    assert len(vault.ledger()) == 1


def test_an_unreadable_record_is_listed_with_why_and_blocks_no_other(vault: Vault) -> None:
    kept = vault.append_to_note("Inbox.md", "kept", change=AGENT)
    damaged = vault.append_to_note("10-projects/Budget.md", "damaged", change=AGENT)
    [damaged_file] = records_folder(vault).glob(f"*-{damaged.record_id}.json")
    damaged_file.write_text(json.dumps({"id": "ffffffff"}))
    [bad] = vault.ledger_unreadable()
    assert bad.as_dict() == {
        "id": damaged.record_id,
        "file": str(damaged_file),
        "unreadable": "the record's id does not match its file name",
    }
    assert bad.seq == 2
    assert [record.id for record in vault.ledger()] == [kept.record_id]
    with pytest.raises(LedgerError) as refused:
        vault.ledger_record(str(damaged.record_id).upper())
    assert refused.value.message == (
        f"the change record {damaged_file} cannot be read "
        "(the record's id does not match its file name)"
    )
    assert refused.value.suggestion == (
        f"discard it with `vaultctx ledger drop {damaged.record_id}`; the other records stay "
        "undoable"
    )
    assert not isinstance(refused.value, RecordNotFoundError)


def test_a_record_of_a_newer_format_is_unreadable_and_says_so(vault: Vault) -> None:
    change = vault.append_to_note("Inbox.md", "x", change=AGENT)
    [record_file] = records_folder(vault).glob("*.json")
    raw = json.loads(record_file.read_text())
    record_file.write_text(json.dumps({**raw, "version": 3}))
    [bad] = vault.ledger_unreadable()
    assert bad.id == change.record_id
    assert bad.why == "written by a newer vaultctx (format 3)"
    assert vault.ledger() == []


def test_a_format_1_record_without_a_version_reads_back(vault: Vault) -> None:
    change = vault.append_to_note("Inbox.md", "x", change=AGENT)
    [record_file] = records_folder(vault).glob("*.json")
    raw = json.loads(record_file.read_text())
    del raw["version"]
    record_file.write_text(json.dumps(raw))
    assert [record.id for record in vault.ledger()] == [change.record_id]
    assert vault.ledger_unreadable() == []


def test_a_record_rewritten_in_place_is_read_again(vault: Vault) -> None:
    """Parsed records are cached by size and time; a changed file is never served stale."""
    vault.append_to_note("Inbox.md", "x", change=AGENT)
    store = vault.ledger_store()
    [record] = store.records()
    [record_file] = records_folder(vault).glob("*.json")
    raw = json.loads(record_file.read_text())
    record_file.write_text(json.dumps({**raw, "label": "relabelled by hand, longer"}))
    assert store.records()[0].label == "relabelled by hand, longer"
    assert record.label == "test change"
