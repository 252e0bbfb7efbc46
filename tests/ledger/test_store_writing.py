"""The ledger's files as a change writes them: the journal (header, each step, cancels) before the
change is made, the finished record and its contents after, and retention's choice of what to
drop. In this process, on a ``LedgerStore`` of its own, so each promise is checked at the file."""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
from pathlib import Path

import pytest

from vaultctx.ledger.snapshot import MISSING, FileState, FolderState
from vaultctx.ledger.store import OLD_RECORDS_KEPT, LedgerError, LedgerStore, is_record_id
from vaultctx.vault.writes import digest

DAY = 86_400.0


@pytest.fixture
def store(tmp_path: Path) -> LedgerStore:
    vault = tmp_path / "vault"
    vault.mkdir()
    return LedgerStore(tmp_path / "data" / "ledger" / "v-1", vault)


def content(text: str) -> tuple[FileState, dict[str, bytes]]:
    data = text.encode()
    return FileState(digest(data), len(data), 0o644), {digest(data): data}


def record_change(
    store: LedgerStore, path: str = "a.md", text: str = "one", label: str = "change"
) -> str:
    state, blobs = content(text)
    with store.locked():
        journal = store.begin(label=label, conversation_id="c-1", source="agent", kind="create")
        journal.step([(path, MISSING, state)], blobs)
        record, _ = store.finish(journal)
    assert record is not None
    return record.id


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_journal_holds_its_header_and_each_step_before_the_step_is_made(
    store: LedgerStore,
) -> None:
    one, blobs_one = content("one")
    two, blobs_two = content("two")
    with store.locked():
        journal = store.begin(label="ask", conversation_id=None, source="mcp", kind="edit")
        assert not journal.path.exists()  # nothing written before the first step
        assert journal.step([("a.md", MISSING, one)], blobs_one) == 1
        assert journal.path.name == f"00000001-{journal.id}.journal"
        assert stat.S_IMODE(os.lstat(journal.path).st_mode) == 0o600
        [header, step] = lines(journal.path)
        assert header == {
            "version": 2,
            "id": journal.id,
            "label": "ask",
            "conversation_id": None,
            "source": "mcp",
            "kind": "edit",
            "created_at": header["created_at"],
        }
        assert step == {
            "step": 1,
            "roots": [{"path": "a.md", "before": {"kind": "missing"}, "after": one.as_json()}],
        }
        blob = store.folder / "blobs" / one.sha256
        assert blob.read_bytes() == b"one" and stat.S_IMODE(os.lstat(blob).st_mode) == 0o600
        assert journal.step([("a.md", one, two)], blobs_two) == 2
        journal.cancel(2)
        assert lines(journal.path)[2:] == [
            {
                "step": 2,
                "roots": [{"path": "a.md", "before": one.as_json(), "after": two.as_json()}],
            },
            {"cancel": 2},
        ]
        # An interrupted change as listed: the cancelled step left out, the last step's before.
        [interrupted] = store.records()
        assert interrupted.interrupted and interrupted.id == journal.id
        assert [(e.path, e.before, e.after) for e in interrupted.entries] == [
            ("a.md", MISSING, one)
        ]
        assert interrupted.last_before == (("a.md", MISSING),)
        record, notices = store.finish(journal)
    assert record is not None and notices == []
    assert not journal.path.exists()
    finished = store.record_file(1, journal.id, "json")
    assert stat.S_IMODE(os.lstat(finished).st_mode) == 0o600
    assert json.loads(finished.read_text()) == record.as_json()
    [listed] = store.records()
    assert listed == record and not listed.interrupted
    assert (listed.label, listed.source, listed.kind, listed.conversation_id) == (
        "ask",
        "mcp",
        "edit",
        None,
    )


def test_a_journal_torn_mid_line_or_without_a_step_names_no_change(store: LedgerStore) -> None:
    one, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id="c", source="agent", kind="edit")
        journal.step([("a.md", MISSING, one)], blobs)
        journal.close()
    path = journal.path
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"step": 2, "roots": [{"pa')  # killed while writing step 2
    [record] = store.records()
    assert record.interrupted and record.paths == ["a.md"]
    header_only = whole.split(b"\n")[0] + b"\n"
    path.write_bytes(header_only)
    assert store.scan() == ([], [])
    path.write_bytes(b"")
    assert store.scan() == ([], [])
    path.write_bytes(header_only + b"[1]\n")
    [bad] = store.unreadable()
    assert bad.why == "a journal line must be an object"
    path.write_bytes(header_only.replace(journal.id.encode(), b"00000000"))
    [bad] = store.unreadable()
    assert bad.why == "the journal's id does not match its file name"


def test_a_change_that_changed_nothing_leaves_no_record_and_no_journal(store: LedgerStore) -> None:
    one, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id="c", source="agent", kind="edit")
        journal.step([("a.md", MISSING, one)], blobs)
        journal.step([("a.md", one, MISSING)], blobs)
        assert store.finish(journal) == (None, [])
        assert not journal.path.exists()
        untouched = store.begin(label="y", conversation_id="c", source="agent", kind="edit")
        assert store.finish(untouched) == (None, [])
    assert os.listdir(store.folder / "records") == []


def test_a_new_record_takes_the_next_sequence_number_and_a_free_id(
    store: LedgerStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = record_change(store)
    with store.locked():
        (store.folder / "records" / "00000007-0000000a.journal").write_text("")
        (store.folder / "records" / "00000099-notarecord.json").write_text("")
        ids = iter([first, "0000000a", "1234abcd"])
        monkeypatch.setattr(secrets, "token_hex", lambda n: next(ids))
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
    assert (journal.seq, journal.id) == (8, "1234abcd")


def test_a_content_already_stored_is_not_written_again(store: LedgerStore) -> None:
    record_change(store, "a.md", "same")
    blob = store.folder / "blobs" / digest(b"same")
    before = os.lstat(blob)
    record_change(store, "b.md", "same")
    after = os.lstat(blob)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def age(store: LedgerStore, days: float) -> None:
    for path in (store.folder / "records").glob("*.json"):
        raw = json.loads(path.read_text())
        raw["created_at"] -= days * DAY
        path.write_text(json.dumps(raw))


def test_exactly_twenty_old_records_are_kept_and_their_contents_with_them(
    store: LedgerStore,
) -> None:
    old = [record_change(store, f"n{i}.md", f"old {i}") for i in range(OLD_RECORDS_KEPT + 2)]
    age(store, 7.01)
    young = record_change(store, "young.md", "young")
    assert [r.id for r in store.records()] == [*old[2:], young]
    blobs = set(os.listdir(store.folder / "blobs"))
    assert digest(b"old 0") not in blobs and digest(b"old 1") not in blobs
    assert digest(b"old 2") in blobs and digest(b"young") in blobs
    # The young one ages too: 21 old records, the oldest of them goes, 20 stay.
    age(store, 7.01)
    later = record_change(store, "later.md", "later")
    assert [r.id for r in store.records()] == [*old[3:], young, later]


def test_records_younger_than_the_window_are_never_dropped(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, keep_days=2, max_bytes=0)
    for i in range(OLD_RECORDS_KEPT + 3):
        record_change(store, f"n{i}.md", f"text {i}")
    age(store, 1.99)
    record_change(store, "last.md", "last")
    assert len(store.records()) == OLD_RECORDS_KEPT + 4


def test_the_size_cap_drops_old_records_oldest_first_until_under_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, max_bytes=10)
    first = record_change(store, "a.md", "12345")
    second = record_change(store, "b.md", "67890")
    third = record_change(store, "c.md", "abcde")  # 15 bytes, all young: kept
    age(store, 8)
    state, blobs = content("xyz")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("d.md", MISSING, state)], blobs)
        record, notices = store.finish(journal)
    assert record is not None
    # 18 bytes: dropping the oldest leaves 13, the next 8: two dropped, the third kept.
    assert [r.id for r in store.records()] == [third, record.id]
    assert first not in os.listdir(store.folder / "records")
    assert second not in str(os.listdir(store.folder / "records"))
    assert notices == [
        "the change ledger dropped its 2 oldest change(s), older than 7 days, to stay under its "
        "cap of 0 MB (`ledger_max_mb`)"
    ]


def test_the_size_of_a_content_shared_by_records_counts_once(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, max_bytes=6)
    record_change(store, "a.md", "12345")
    record_change(store, "b.md", "12345")
    age(store, 8)
    state, blobs = content("x")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("c.md", MISSING, state)], blobs)
        record, notices = store.finish(journal)
    assert record is not None and notices == []  # 5 + 1 bytes: under the cap
    assert len(store.records()) == 3


def test_the_cap_notice_names_a_fractional_window_and_large_sizes(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, keep_days=0.5, max_bytes=2_000_000_000)
    store.max_bytes = 0
    state = FileState("f" * 64, 3_456_789_012, 0o644)
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        (store.folder / "blobs" / state.sha256).write_bytes(b"")
        journal.step([("big.md", MISSING, state)], {})
        record, notices = store.finish(journal)
    assert record is not None
    assert notices == [
        "the change ledger holds 3,457 MB, over its cap of 0 MB; the changes of the last 0.5 "
        "days are kept anyway (discard one with `vaultctx ledger drop ID`, or raise "
        "`ledger_max_mb`)"
    ]


def test_stale_journals_go_and_an_interrupted_change_stays(store: LedgerStore) -> None:
    kept = record_change(store, "a.md", "one")
    records = store.folder / "records"
    beside = records / f"00000001-{kept}.journal"  # the process stopped after the rename
    one, _ = content("one")
    step = {
        "step": 1,
        "roots": [{"path": "a.md", "before": {"kind": "missing"}, "after": one.as_json()}],
    }
    header = {
        "version": 2,
        "id": kept,
        "label": "x",
        "source": "cli",
        "kind": "edit",
        "created_at": 1.0,
    }
    beside.write_text(json.dumps(header) + "\n" + json.dumps(step) + "\n")
    empty = records / "00000002-0000000b.journal"  # never got a step
    empty.write_text(json.dumps({"version": 2, "id": "0000000b"}) + "\n")
    damaged = records / "00000003-0000000c.journal"  # unreadable: kept, listed as such
    damaged.write_text("{not json\n")
    state, blobs = content("two")
    with store.locked():
        interrupted = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        interrupted.step([("b.md", MISSING, state)], blobs)
        interrupted.close()
    (records / "notes.txt").write_text("not ours to judge")
    record_change(store, "c.md", "three")
    left = sorted(os.listdir(records))
    assert beside.name not in left and empty.name not in left
    assert damaged.name in left and interrupted.path.name in left and "notes.txt" in left
    assert [r.interrupted for r in store.records()] == [False, True, False]


def test_only_contents_no_record_needs_are_collected(store: LedgerStore) -> None:
    first = record_change(store, "a.md", "one")
    record_change(store, "b.md", "two")
    blobs = store.folder / "blobs"
    (blobs / ".staged.tmp").write_text("a staged copy: not a content")
    with store.locked():
        store.drop(store.get(first))
    assert sorted(os.listdir(blobs)) == sorted([".staged.tmp", digest(b"two")])
    assert not store.record_file(1, first, "json").exists()


def test_contents_of_an_interrupted_changes_last_step_are_kept(store: LedgerStore) -> None:
    one, blobs_one = content("one")
    folder_before = FolderState((("x.md", one),))
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("f", folder_before, MISSING)], blobs_one)
        journal.close()
    other = record_change(store, "b.md", "two")
    with store.locked():
        store.drop(store.get(other))
    assert digest(b"one") in os.listdir(store.folder / "blobs")


def test_a_record_dropped_for_size_among_the_twenty_old_ones_is_named(tmp_path: Path) -> None:
    """The first old record beyond twenty goes for the count; the next, for the cap, is told."""
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, max_bytes=OLD_RECORDS_KEPT)
    old = [record_change(store, f"n{i}.md", chr(ord("a") + i)) for i in range(OLD_RECORDS_KEPT + 1)]
    age(store, 8)
    state, blobs = content("!")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("young.md", MISSING, state)], blobs)
        record, notices = store.finish(journal)
    assert record is not None
    assert [r.id for r in store.records()] == [*old[2:], record.id]
    assert notices == [
        "the change ledger dropped its 1 oldest change(s), older than 7 days, to stay under its "
        "cap of 0 MB (`ledger_max_mb`)"
    ]


def test_a_step_whose_content_cannot_be_stored_is_refused_with_why(
    store: LedgerStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")

        def full(needed: object, given: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(store, "write_blobs", full)
        with pytest.raises(LedgerError) as refused:
            journal.step([("a.md", MISSING, state)], blobs)
        assert refused.value.message == (
            f"cannot write to the change ledger {store.folder} (No space left on device), so "
            "nothing was changed: vaultctx makes no change it cannot record first"
        )
        assert refused.value.suggestion == (
            "free some disk space, or make the ledger folder writable, and try again"
        )
        assert journal.steps == []
        bare = store.cannot_write(OSError("odd failure"))
        assert bare.message.startswith(f"cannot write to the change ledger {store.folder} (odd")


def test_a_cancel_that_cannot_be_journalled_still_cancels_the_step(
    store: LedgerStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("a.md", MISSING, state)], blobs)

        def failing_fsync(fd: int) -> None:
            raise OSError(errno.EIO, "I/O error")

        monkeypatch.setattr(os, "fsync", failing_fsync)
        journal.cancel(1)
        monkeypatch.undo()
        assert journal.steps == []
        assert store.finish(journal) == (None, [])


def test_busy_only_while_another_holder_has_the_ledger(store: LedgerStore) -> None:
    assert store.busy() is False  # no ledger yet
    with store.locked():
        pass
    (store.folder / "lock").unlink()
    assert store.busy() is False
    assert stat.S_IMODE(os.lstat(store.folder / "lock").st_mode) == 0o600
    other = LedgerStore(store.folder, Path(store.vault))
    with other.locked():
        assert store.busy() is True
    assert store.busy() is False


def test_newest_is_the_last_record_and_ids_are_eight_hex_digits(store: LedgerStore) -> None:
    assert store.newest() is None
    record_change(store, "a.md", "one")
    second = record_change(store, "b.md", "two")
    newest = store.newest()
    assert newest is not None and newest.id == second
    assert is_record_id(second) and is_record_id(f"  {second.upper()} ")
    for text in ("0a1b2c3", "0a1b2c3d0", "0a1b2c3g", "", "0a1b 2c3"):
        assert not is_record_id(text), text


def test_an_interrupted_change_keeps_the_contents_of_each_of_its_states(
    store: LedgerStore,
) -> None:
    """Undo accepts the last step as made or not, so its before-state's content is kept too."""
    one, blobs_one = content("one")
    two, blobs_two = content("two")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("a.md", MISSING, one)], blobs_one)
        journal.step([("a.md", one, two)], blobs_two)
        journal.close()
    other = record_change(store, "b.md", "three")
    with store.locked():
        store.drop(store.get(other))
    assert {digest(b"one"), digest(b"two")} <= set(os.listdir(store.folder / "blobs"))
    assert digest(b"three") not in os.listdir(store.folder / "blobs")


def test_steps_after_a_cancelled_one_are_read_back(store: LedgerStore) -> None:
    one, blobs_one = content("one")
    two, blobs_two = content("two")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.step([("a.md", MISSING, one)], blobs_one)
        journal.step([("b.md", MISSING, two)], blobs_two)
        journal.cancel(2)
        journal.step([("c.md", MISSING, two)], blobs_two)
        journal.close()
    [record] = store.records()
    assert record.paths == ["a.md", "c.md"] and record.last_before == (("c.md", MISSING),)


def test_a_journal_of_a_newer_format_is_unreadable_with_why(store: LedgerStore) -> None:
    one, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.header["version"] = 3
        journal.step([("a.md", MISSING, one)], blobs)
        journal.close()
    assert store.records() == []
    [bad] = store.unreadable()
    assert bad.why == "written by a newer vaultctx (format 3)"


def test_an_old_interrupted_change_is_dropped_with_its_journal(store: LedgerStore) -> None:
    one, blobs = content("one")
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        journal.header["created_at"] -= 8 * DAY
        journal.step([("a.md", MISSING, one)], blobs)
        journal.close()
    for i in range(OLD_RECORDS_KEPT):
        record_change(store, f"n{i}.md", f"old {i}")
    age(store, 8)
    record_change(store, "young.md", "young")
    assert not journal.path.exists()
    assert [r.interrupted for r in store.records()] == [False] * (OLD_RECORDS_KEPT + 1)


def test_the_cap_notice_counts_megabytes_of_a_million_bytes(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    store = LedgerStore(tmp_path / "ledger", vault, max_bytes=1_000_500_000_000)
    state = FileState("e" * 64, 2_001_000_000_000, 0o644)
    with store.locked():
        journal = store.begin(label="x", conversation_id=None, source="cli", kind="edit")
        (store.folder / "blobs" / state.sha256).write_bytes(b"")
        journal.step([("big.md", MISSING, state)], {})
        _, notices = store.finish(journal)
    assert notices == [
        "the change ledger holds 2,001,000 MB, over its cap of 1,000,500 MB; the changes of the "
        "last 7 days are kept anyway (discard one with `vaultctx ledger drop ID`, or raise "
        "`ledger_max_mb`)"
    ]


def test_a_journal_that_cannot_be_read_never_stops_a_change(store: LedgerStore) -> None:
    record_change(store, "a.md", "one")
    odd = store.folder / "records" / "00000005-0000000e.journal"
    odd.mkdir()  # reading it fails with an OSError
    second = record_change(store, "b.md", "two")
    assert odd.is_dir()
    assert [r.id for r in store.records()][-1] == second
