"""``vaultctx ledger drop`` in this process (what it discards, what it keeps, what it returns), and
the exact texts undo's refusals and notices give the user."""

from __future__ import annotations

import json

import pytest

from tests.ledger.conftest import AGENT, tree
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.ledger.snapshot import MISSING, FolderState, file_state
from vaultctx.ledger.store import LedgerStore
from vaultctx.ledger.undo import NothingToUndoError, UndoConflictError, UndoDependencyError
from vaultctx.vault.writes import NoteChangeError, digest


def blob_names(store: LedgerStore) -> set[str]:
    return {path.name for path in (store.folder / "blobs").iterdir()}


def record_files(store: LedgerStore) -> list[str]:
    return sorted(path.name for path in (store.folder / "records").iterdir())


def test_drop_discards_one_record_its_own_contents_and_nothing_else(vault: Vault) -> None:
    store = vault.ledger_store()
    original = (vault.path / "Inbox.md").read_bytes()
    kept = vault.append_to_note("Inbox.md", "kept", change=AGENT)
    private = "# Secret draft\n"
    dropped = vault.create_note("drafts/Secret.md", private, change=AGENT)
    assert digest(private.encode()) in blob_names(store)
    record, diffs = vault.ledger_drop(f" {str(dropped.record_id).upper()} ")
    assert record.id == dropped.record_id
    assert [(d.path, d.change) for d in diffs] == [("drafts/Secret.md", "added")]
    assert (
        diffs[0].diff == "--- /dev/null\n+++ b/drafts/Secret.md\n@@ -0,0 +1 @@\n+# Secret draft\n"
    )
    assert (vault.path / "drafts/Secret.md").read_text() == private  # the vault is untouched
    assert [r.id for r in vault.ledger()] == [kept.record_id]
    assert record_files(store) == [f"00000001-{kept.record_id}.json"]
    # The dropped record's own content is gone; what the kept record needs stays.
    assert blob_names(store) == {digest(original), digest(original + b"\nkept")}
    vault.undo()
    assert (vault.path / "Inbox.md").read_bytes() == original


def test_drop_of_a_record_whose_content_is_gone_still_drops_it(vault: Vault) -> None:
    store = vault.ledger_store()
    change = vault.replace_note("Inbox.md", "replaced\n", change=AGENT)
    for blob in (store.folder / "blobs").iterdir():
        blob.unlink()
    record, diffs = vault.ledger_drop(str(change.record_id))
    assert record.id == change.record_id and diffs == []
    assert vault.ledger() == [] and record_files(store) == []


def test_drop_of_an_unreadable_record(vault: Vault) -> None:
    store = vault.ledger_store()
    good = vault.append_to_note("Inbox.md", "good", change=AGENT)
    bad = vault.append_to_note("10-projects/Plan.md", "bad", change=AGENT)
    [bad_file] = (store.folder / "records").glob(f"*-{bad.record_id}.json")
    bad_file.write_text("{not json")
    record, diffs = vault.ledger_drop(str(bad.record_id))
    assert record.id == bad.record_id and diffs == []
    assert record_files(store) == [f"00000001-{good.record_id}.json"]
    assert vault.ledger_unreadable() == []
    inbox = (vault.path / "Inbox.md").read_bytes()
    assert blob_names(store) == {digest(inbox.removesuffix(b"\ngood")), digest(inbox)}


def test_drop_of_an_interrupted_record_removes_its_journal(vault: Vault) -> None:
    store = vault.ledger_store()
    data = b"# half\n"
    with store.locked():
        journal = store.begin(label="killed", conversation_id=None, source="cli", kind="para")
        journal.step([("Half.md", MISSING, file_state(data, 0o644))], {digest(data): data})
        journal.close()
    [record] = vault.ledger()
    assert record.interrupted and record.as_dict()["interrupted"] is True
    assert record.paths == ["Half.md"] and record.label == "killed"
    dropped, _ = vault.ledger_drop(record.id)
    assert dropped.id == record.id
    assert record_files(store) == [] and blob_names(store) == set()


def test_nothing_to_undo_says_so(vault: Vault) -> None:
    with pytest.raises(NothingToUndoError) as empty:
        vault.undo()
    assert empty.value.message == (
        f"No AI changes have been recorded for {vault.ledger_store().vault}"
    )
    assert empty.value.suggestion == "nothing to undo; `vaultctx ledger` lists recorded changes"


def test_nothing_readable_to_undo_counts_the_unreadable_records(vault: Vault) -> None:
    for text in ("one", "two"):
        vault.append_to_note("Inbox.md", text, change=AGENT)
    for record_file in (vault.ledger_store().folder / "records").glob("*.json"):
        record_file.write_text("[]")
    with pytest.raises(NothingToUndoError) as unreadable:
        vault.undo()
    assert unreadable.value.message == (
        f"No AI change that can be read is recorded for {vault.ledger_store().vault}; "
        "2 record(s) cannot be read"
    )
    assert unreadable.value.suggestion == (
        "`vaultctx ledger` says why; `vaultctx ledger drop ID` discards one"
    )


def test_a_conflict_names_ten_files_and_counts_the_rest(vault: Vault) -> None:
    context = ChangeContext("many notes", source="cli")
    names = [f"n{i:02d}.md" for i in range(12)]
    with vault.change_batch(context, "template") as batch:
        for name in names:
            batch.create(name, "# AI\n")
    record_id = batch.change.record_id if batch.change else None
    for name in names:
        (vault.path / name).write_text("# mine\n")
    edited = tree(vault.path)
    with pytest.raises(UndoConflictError) as refused:
        vault.undo()
    assert refused.value.message == (
        f"undo refused: {', '.join(names[:10])} and 2 more changed after the AI change "
        f"{record_id} (many notes); nothing was written"
    )
    assert refused.value.suggestion == (
        "only a change whose files are exactly as it left them can be undone; restore those "
        f"files by hand (`vaultctx ledger show {record_id}` shows what the change did), or keep "
        "the change"
    )
    assert refused.value.changed == names
    assert tree(vault.path) == edited


def test_a_conflict_of_ten_files_or_fewer_counts_nothing_more(vault: Vault) -> None:
    change = vault.append_to_note("Inbox.md", "AI", change=AGENT)
    (vault.path / "Inbox.md").write_text("mine")
    with pytest.raises(UndoConflictError) as refused:
        vault.undo()
    assert refused.value.message == (
        f"undo refused: Inbox.md changed after the AI change {change.record_id} (test change); "
        "nothing was written"
    )


def test_a_dependency_names_the_later_changes_and_which_to_undo_first(vault: Vault) -> None:
    first = vault.append_to_note("Inbox.md", "one", change=AGENT)
    other = ChangeContext("second edit", source="mcp")
    vault.append_to_note("10-projects/Plan.md", "unrelated", change=AGENT)
    second = vault.append_to_note("Inbox.md", "two", change=other)
    third = vault.edit_note("Inbox.md", "two", "three", change=AGENT)
    before = tree(vault.path)
    with pytest.raises(UndoDependencyError) as refused:
        vault.undo(first.record_id)
    assert refused.value.message == (
        f"undo refused: the later change(s) {second.record_id} (second edit), "
        f"{third.record_id} (test change) touched the same files as {first.record_id} "
        "(test change); nothing was written"
    )
    assert refused.value.suggestion == (
        f"undo the later change(s) first (`vaultctx undo {third.record_id}`), or discard one "
        "that cannot apply with `vaultctx ledger drop ID`"
    )
    assert refused.value.later == [second.record_id, third.record_id]
    assert tree(vault.path) == before


def test_records_in_and_below_a_folder_depend_on_each_other(vault: Vault) -> None:
    """A later change inside a folder an earlier one moved (or created) blocks undoing the
    earlier one; a folder whose name only starts alike does not."""
    moved = vault.move_path("20-areas", "21-areas", change=AGENT)
    vault.create_note("20-areas-x/Other.md", "x", change=AGENT)
    inside = vault.append_to_note("21-areas/Review.md", "later", change=AGENT)
    created = vault.create_note("new/A.md", "a", change=AGENT)
    vault.create_note("newer/B.md", "b", change=AGENT)
    trashed = vault.trash_path("new/A.md", change=AGENT)
    for earlier, later in ((moved, inside), (created, trashed)):
        with pytest.raises(UndoDependencyError) as refused:
            vault.undo(earlier.record_id)
        assert refused.value.later == [later.record_id]


def test_a_later_change_of_the_folder_around_a_record_blocks_its_undo(vault: Vault) -> None:
    """The other way round: a later change moved the folder that holds what an earlier one
    created, so undoing the earlier one would write where the user no longer has it."""
    created = vault.create_note("10-projects/New.md", "x", change=AGENT)
    trashed = vault.trash_path("10-projects", change=AGENT)
    with pytest.raises(UndoDependencyError) as refused:
        vault.undo(created.record_id)
    assert refused.value.later == [trashed.record_id]


def test_undo_by_id_of_an_independent_record(vault: Vault) -> None:
    created = vault.create_note("new/A.md", "a", change=AGENT)
    vault.create_note("new-b/B.md", "b", change=AGENT)
    report = vault.undo(created.record_id)
    assert report.record.id == created.record_id
    assert report.dry_run is False and report.as_dict()["dry_run"] is False
    assert not (vault.path / "new").exists() and (vault.path / "new-b/B.md").exists()


@pytest.mark.parametrize(("count", "more"), [(10, ""), (11, " and 1 more")])
def test_undo_notices_name_ten_files_already_as_before_and_count_the_rest(
    vault: Vault, count: int, more: str
) -> None:
    names = [f"n{i:02d}.md" for i in range(count)]
    with vault.change_batch(ChangeContext("many", source="cli"), "template") as batch:
        for name in names:
            batch.create(name, "# AI\n")
    for name in names:
        (vault.path / name).unlink()
    report = vault.undo(dry_run=True)
    assert report.dry_run and report.as_dict()["dry_run"] is True
    assert report.notices == [
        f"already as before the change, left as they are: {', '.join(names[:10])}{more}"
    ]
    assert report.as_dict()["notices"] == report.notices
    assert report.as_dict()["record"] == report.record.as_dict()
    assert len(vault.ledger()) == 1  # a dry run changes nothing


def test_undo_notices_one_file_already_as_before_and_ten_conflicts_without_more(
    vault: Vault,
) -> None:
    vault.create_note("drafts/Idea.md", "# Idea\n", change=AGENT)
    (vault.path / "drafts/Idea.md").unlink()
    report = vault.undo(dry_run=True)
    assert report.notices == ["already as before the change, left as they are: drafts/Idea.md"]
    vault.undo()
    names = [f"n{i:02d}.md" for i in range(10)]
    with vault.change_batch(ChangeContext("ten", source="cli"), "template") as batch:
        for name in names:
            batch.create(name, "# AI\n")
    for name in names:
        (vault.path / name).write_text("# mine\n")
    with pytest.raises(UndoConflictError) as refused:
        vault.undo()
    assert refused.value.message.startswith(f"undo refused: {', '.join(names)} changed after")


def test_undo_notices_newer_unreadable_records_and_an_interrupted_change(vault: Vault) -> None:
    store = vault.ledger_store()
    older = vault.append_to_note("Inbox.md", "older", change=AGENT)
    data = b"# half\n"
    with store.locked():
        journal = store.begin(label="killed", conversation_id=None, source="cli", kind="para")
        journal.step([("Half.md", MISSING, file_state(data, 0o644))], {digest(data): data})
        journal.close()
    (vault.path / "Half.md").write_bytes(data)
    broken = vault.append_to_note("10-projects/Plan.md", "newer", change=AGENT)
    [broken_file] = (store.folder / "records").glob(f"*-{broken.record_id}.json")
    broken_file.write_text(json.dumps([]))
    report = vault.undo()
    assert report.record.interrupted and report.record.label == "killed"
    assert report.notices == [
        "this change was interrupted before it finished; the steps it made are taken back",
        f"newer record(s) {broken.record_id} cannot be read; `vaultctx ledger` says why, "
        "`vaultctx ledger drop ID` discards one",
    ]
    assert not (vault.path / "Half.md").exists()
    report = vault.undo(older.record_id)
    assert report.notices == [
        f"newer record(s) {broken.record_id} cannot be read; `vaultctx ledger` says why, "
        "`vaultctx ledger drop ID` discards one"
    ]
    assert report.paths == ["Inbox.md"] and report.as_dict()["files"][0]["path"] == "Inbox.md"


def test_undo_names_every_newer_unreadable_record(vault: Vault) -> None:
    vault.append_to_note("Inbox.md", "older", change=AGENT)
    broken = [
        vault.append_to_note("10-projects/Plan.md", text, change=AGENT).record_id
        for text in ("a", "b")
    ]
    for record_file in sorted((vault.ledger_store().folder / "records").glob("*.json"))[1:]:
        record_file.write_text("[]")
    report = vault.undo(dry_run=True)
    assert report.notices == [
        f"newer record(s) {broken[0]}, {broken[1]} cannot be read; `vaultctx ledger` says why, "
        "`vaultctx ledger drop ID` discards one"
    ]


def test_undo_of_a_file_that_is_neither_state_writes_nothing(vault: Vault) -> None:
    vault.replace_note("Inbox.md", "AI\n", change=AGENT)
    (vault.path / "Inbox.md").unlink()
    with pytest.raises(UndoConflictError) as refused:
        vault.undo()
    assert refused.value.changed == ["Inbox.md"]
    assert not (vault.path / "Inbox.md").exists()


def test_undo_stops_before_writing_when_a_folder_on_the_way_became_a_file(vault: Vault) -> None:
    (vault.path / "a" / "b").mkdir(parents=True)
    (vault.path / "a" / "b" / "Plan.md").write_text("# plan\n")
    vault.trash_path("a/b/Plan.md", change=AGENT)
    for path in (vault.path / "a" / "b", vault.path / "a"):
        path.rmdir()
    (vault.path / "a").write_text("a file now")
    before = tree(vault.path)
    with pytest.raises(NoteChangeError) as refused:
        vault.undo()
    assert refused.value.message == (
        "path refused: a part of a/b/Plan.md is a file, not a folder; nothing was changed"
    )
    assert tree(vault.path) == before and len(vault.ledger()) == 1


def test_undo_of_an_interrupted_change_removes_the_staged_copy_it_left(vault: Vault) -> None:
    store = vault.ledger_store()
    data = b"# half\n"
    created = FolderState((("Half.md", file_state(data, 0o644)),))
    with store.locked():
        journal = store.begin(label="killed", conversation_id=None, source="cli", kind="para")
        journal.step([("new", MISSING, created)], {digest(data): data})
        journal.close()
    (vault.path / "new").mkdir()
    (vault.path / "new" / "Half.md").write_bytes(data)
    (vault.path / "new" / ".Half.md.k3j9x0qa.vaultctx-tmp").write_bytes(b"# half, staged")
    (vault.path / "new" / ".Other.md.k3j9x0qa.vaultctx-tmp").write_bytes(b"not ours to take")
    with pytest.raises(UndoConflictError) as refused:
        vault.undo()
    assert refused.value.changed == ["new/.Other.md.k3j9x0qa.vaultctx-tmp"]
    (vault.path / "new" / ".Other.md.k3j9x0qa.vaultctx-tmp").unlink()
    report = vault.undo()
    assert report.record.interrupted
    assert not (vault.path / "new").exists()
