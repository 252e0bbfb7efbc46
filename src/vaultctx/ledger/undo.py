"""Undo a recorded change (the newest, or one by id), and only when that is provably safe.

A record is undone by id only when no later record touched its paths (undo those first). Every
path the record touched is compared, by content, with the record's "after" state; a part already
as it was before the change (a note the change created and the user deleted) is fine and left
alone, and said so. If anything is in neither state (the user edited or moved a file since, or
another program did), the undo is refused, names the files, and writes nothing. An interrupted
record's last step may or may not have been made: either is accepted.

Otherwise each path gets its "before" state back: files the change created are removed first,
then files it changed or removed are written again (atomically, with their mode) and folders it
trashed or moved come back. Each removal and rewrite compares the file once more right before
it, so nothing that is not the ledger's own content is ever deleted or overwritten, even when a
save lands in the middle of the undo.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultctx.ledger import snapshot
from vaultctx.ledger.diff import FileDiff, record_diffs
from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, LinkState, State
from vaultctx.ledger.store import (
    LedgerEntry,
    LedgerError,
    LedgerRecord,
    LedgerStore,
    RecordNotFoundError,
    UnreadableRecord,
)
from vaultctx.vault.writes import (
    NoteChangeError,
    check_no_links,
    create_file,
    make_folders,
    remove_file,
    replace_file,
)

MAX_NAMED_FILES = 10
_STAGED = re.compile(r"^\.(.+)\.[a-z0-9_]{8}\.vaultctx-tmp$")


class NothingToUndoError(LedgerError):
    """The ledger holds no change."""


class UndoConflictError(NoteChangeError):
    """A file the change touched is not as the change left it; nothing was written."""

    def __init__(self, record: LedgerRecord, changed: list[str]) -> None:
        shown = ", ".join(changed[:MAX_NAMED_FILES])
        more = (
            f" and {len(changed) - MAX_NAMED_FILES} more" if len(changed) > MAX_NAMED_FILES else ""
        )
        super().__init__(
            f"undo refused: {shown}{more} changed after the AI change {record.id} "
            f"({record.label}); nothing was written",
            "only a change whose files are exactly as it left them can be undone; restore those "
            "files by hand (`vaultctx ledger show "
            f"{record.id}` shows what the change did), or keep the change",
        )
        self.changed = changed


@dataclass(frozen=True)
class UndoReport:
    """The undone (or, ``dry_run``, the undoable) change and what its undo does per file."""

    record: LedgerRecord
    dry_run: bool
    diffs: list[FileDiff] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [diff.path for diff in self.diffs]

    def as_dict(self) -> dict[str, Any]:
        return {
            "record": self.record.as_dict(),
            "dry_run": self.dry_run,
            "files": [diff.as_dict() for diff in self.diffs],
            "notices": self.notices,
        }


def undo_record(
    store: LedgerStore, root: Path, record_id: str | None, *, dry_run: bool = False
) -> UndoReport:
    """Revert the record ``record_id`` (None: the newest readable one), provided no later record
    touched its paths and every path is as the change left it, or already as before it."""
    with store.locked():
        records, unreadable = store.scan()
        if record_id is None:
            if not records and unreadable:
                raise NothingToUndoError(
                    f"No AI change that can be read is recorded for {store.vault}; "
                    f"{len(unreadable)} record(s) cannot be read",
                    "`vaultctx ledger` says why; `vaultctx ledger drop ID` discards one",
                )
            if not records:
                raise NothingToUndoError(
                    f"No AI changes have been recorded for {store.vault}",
                    "nothing to undo; `vaultctx ledger` lists recorded changes",
                )
            record = records[-1]
        else:
            record = store.get(record_id)
            later = [r for r in records if r.seq > record.seq and _overlap(r, record)]
            if later:
                raise UndoDependencyError(record, later)
        debris = _debris(root, record)
        plan, already, conflicts = _plan(root, record, debris)
        if conflicts:
            raise UndoConflictError(record, conflicts)
        diffs = record_diffs(store, record, reverse=True)
        notices = _notices(record, already, [u.id for u in unreadable if u.seq > record.seq])
        if dry_run:
            return UndoReport(record, True, diffs, notices)
        # Removing what the change created first frees the names a move back needs (a case-only
        # rename on a case-insensitive file system is one name).
        ordered = sorted(plan, key=lambda item: item[0].before != MISSING)
        for entry, _ in ordered:  # a folder on the way swapped for a link stops it before any write
            check_no_links(root, (root / entry.path).parent, entry.path)
        for staged in debris:  # before folders the change created are removed
            with contextlib.suppress(OSError):
                os.unlink(root / staged)
        restorer = _Restorer(store, root)
        for entry, current in ordered:
            restorer.restore(entry, current)
        store.drop(record)
    return UndoReport(record, False, diffs, notices)


def discard(
    store: LedgerStore, record_id: str
) -> tuple[LedgerRecord | UnreadableRecord, list[FileDiff]]:
    """Drop one record without undoing it (``vaultctx ledger drop``): one that cannot apply
    any more, or cannot be read. Returns it with the diff it held (empty when unreadable)."""
    wanted = record_id.strip().lower()
    with store.locked():
        records, unreadable = store.scan()
        for record in records:
            if record.id == wanted:
                try:
                    diffs = record_diffs(store, record)
                except LedgerError:
                    diffs = []
                store.drop(record)
                return record, diffs
        for bad in unreadable:
            if bad.id == wanted:
                store.drop(bad)
                return bad, []
    raise RecordNotFoundError(
        f"no change {record_id!r} in the ledger of {store.vault}",
        "list the recorded changes with `vaultctx ledger`",
    )


def _debris(root: Path, record: LedgerRecord) -> set[str]:
    """The staged copies an interrupted change left beside the files it was writing
    (``.Plan.md.k3j9x0qa.vaultctx-tmp``: the name ``vault.writes`` stages under, which is ours
    alone), vault-relative: undo removes them with the rest."""
    if not record.interrupted:
        return set()
    names: set[str] = set()
    for entry in record.entries:
        states = [entry.before, entry.after, *(s for p, s in record.last_before if p == entry.path)]
        for state in states:
            names |= {path for path, _ in snapshot.files_in(state, entry.path)}
        names.add(entry.path)
    found: set[str] = set()
    for folder in {posixpath.dirname(name) for name in names}:
        where = root.joinpath(*folder.split("/")) if folder else root
        if os.path.realpath(where) != str(where):
            continue  # never through a link, nor out of the vault
        try:
            listed = os.listdir(where)
        except OSError:
            continue
        for listed_name in listed:
            match = _STAGED.match(listed_name)
            if match and posixpath.join(folder, match.group(1)) in names:
                found.add(posixpath.join(folder, listed_name))
    return found


def _plan(
    root: Path, record: LedgerRecord, debris: set[str]
) -> tuple[list[tuple[LedgerEntry, State]], list[str], list[str]]:
    """Each entry with the state it is in now, the paths already as before the change, and the
    paths in neither state (conflicts). An interrupted record's last step may or may not have
    been made, so each of its paths may also be as it was before that step."""
    tail = dict(record.last_before)
    plan: list[tuple[LedgerEntry, State]] = []
    already: list[str] = []
    conflicts: list[str] = []
    for entry in record.entries:
        current = _without(snapshot.take(root / entry.path), entry.path, debris)
        candidates = [entry.after, *([tail[entry.path]] if entry.path in tail else [])]
        first_bad: list[str] | None = None
        for candidate in candidates:
            differing = snapshot.differing_paths(candidate, current, entry.path)
            bad = [
                path
                for path in differing
                if _at(entry.before, entry.path, path) != _at(current, entry.path, path)
            ]
            if not bad:
                plan.append((entry, current))
                already += [p for p in differing if _at(candidate, entry.path, p) != MISSING]
                break
            if first_bad is None:
                first_bad = bad
        else:
            conflicts += first_bad or []
    return plan, already, conflicts


def _without(state: State, prefix: str, debris: set[str]) -> State:
    """``state`` (at ``prefix``) as if the staged copies in ``debris`` were gone."""
    if not isinstance(state, FolderState) or not debris:
        return state
    children = tuple(
        (name, _without(child, f"{prefix}/{name}", debris))
        for name, child in state.children
        if f"{prefix}/{name}" not in debris
    )
    return FolderState(children)


def _at(state: State, prefix: str, path: str) -> State:
    """The part of ``state`` (recorded at ``prefix``) at ``path``."""
    parts = path[len(prefix) + 1 :].split("/") if path != prefix else []
    for name in parts:
        if not isinstance(state, FolderState):
            return MISSING
        state = dict(state.children).get(name, MISSING)
    return state


def _overlap(one: LedgerRecord, other: LedgerRecord) -> bool:
    return any(
        a == b or a.startswith(b + "/") or b.startswith(a + "/")
        for a in one.paths
        for b in other.paths
    )


def _notices(record: LedgerRecord, already: list[str], newer_unreadable: list[str]) -> list[str]:
    notices = []
    if already:
        shown = ", ".join(already[:MAX_NAMED_FILES])
        extra = len(already) - MAX_NAMED_FILES
        more = f" and {extra} more" if extra > 0 else ""
        notices.append(f"already as before the change, left as they are: {shown}{more}")
    if record.interrupted:
        notices.append(
            "this change was interrupted before it finished; the steps it made are taken back"
        )
    if newer_unreadable:
        notices.append(
            f"newer record(s) {', '.join(newer_unreadable)} cannot be read; `vaultctx ledger` "
            "says why, `vaultctx ledger drop ID` discards one"
        )
    return notices


class UndoDependencyError(NoteChangeError):
    """A later record touched the same paths: undo that one first."""

    def __init__(self, record: LedgerRecord, later: list[LedgerRecord]) -> None:
        shown = ", ".join(f"{r.id} ({r.label})" for r in later[:MAX_NAMED_FILES])
        super().__init__(
            f"undo refused: the later change(s) {shown} touched the same files as {record.id} "
            f"({record.label}); nothing was written",
            f"undo the later change(s) first (`vaultctx undo {later[-1].id}`), or discard one "
            "that cannot apply with `vaultctx ledger drop ID`",
        )
        self.later = [r.id for r in later]


class _Restorer:
    def __init__(self, store: LedgerStore, root: Path) -> None:
        self.store = store
        self.root = root

    def restore(self, entry: LedgerEntry, current: State) -> None:
        """``entry``'s path from ``current`` (checked: each part as the change left it, or as
        before it) back to its state before the change."""
        path = self.root / entry.path
        make_folders(self.root, path.parent)
        self._turn(path, entry.path, current, entry.before)

    def _turn(self, path: Path, shown: str, now: State, wanted: State) -> None:
        if now == wanted:
            return
        if isinstance(now, FolderState) and isinstance(wanted, FolderState):
            mine, target = dict(now.children), dict(wanted.children)
            for name in sorted(set(mine) | set(target)):
                self._turn(
                    path / name,
                    f"{shown}/{name}",
                    mine.get(name, MISSING),
                    target.get(name, MISSING),
                )
            return
        if isinstance(now, FileState) and isinstance(wanted, FileState):
            replace_file(
                path,
                self.store.blob(wanted.sha256),
                expected=self.store.blob(now.sha256),
                mode=wanted.mode,
                shown=shown,
            )
            return
        self._remove(path, shown, now)
        self._create(path, shown, wanted)

    def _remove(self, path: Path, shown: str, state: State) -> None:
        if isinstance(state, FileState):
            remove_file(path, expected=self.store.blob(state.sha256), shown=shown)
        elif isinstance(state, FolderState):
            for name, child in state.children:
                self._remove(path / name, f"{shown}/{name}", child)
            os.rmdir(path)  # fails, and stops the undo, if anything else appeared in it
        elif isinstance(state, LinkState):
            raise NoteChangeError(
                f"{shown} is a link; undo never removes one", "remove it yourself"
            )

    def _create(self, path: Path, shown: str, state: State) -> None:
        if isinstance(state, FileState):
            create_file(path, self.store.blob(state.sha256), state.mode, shown)
        elif isinstance(state, FolderState):
            os.mkdir(path)
            for name, child in state.children:
                self._create(path / name, f"{shown}/{name}", child)
        elif isinstance(state, LinkState):
            raise NoteChangeError(
                f"{shown} was a link; undo never creates one", "recreate it yourself"
            )
