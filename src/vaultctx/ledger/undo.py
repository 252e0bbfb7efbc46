"""Undo the newest recorded change, and only when that is provably safe.

First every path the record touched is compared, by content, with the record's "after" state.
If anything differs (the user edited, moved or deleted a file since, or another program did),
the undo is refused, names the files, and writes nothing. Otherwise each path gets its "before"
state back: files the change created are removed, files it changed or removed are written again
(atomically, with their mode), folders it trashed or moved come back. Each removal and rewrite
compares the file once more right before it, so nothing that is not the ledger's own "after"
content is ever deleted or overwritten, even when a save lands in the middle of the undo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultctx.ledger import snapshot
from vaultctx.ledger.diff import FileDiff, record_diffs
from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, LinkState, State
from vaultctx.ledger.store import LedgerEntry, LedgerError, LedgerRecord, LedgerStore
from vaultctx.vault.writes import (
    NoteChangeError,
    check_no_links,
    create_file,
    make_folders,
    remove_file,
    replace_file,
)

MAX_NAMED_FILES = 10


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


def undo_newest(store: LedgerStore, root: Path, *, dry_run: bool = False) -> UndoReport:
    """Revert the newest record (see the module's docstring); ``dry_run`` only reports."""
    with store.locked():
        record = store.newest()
        if record is None:
            raise NothingToUndoError(
                f"No AI changes have been recorded for {store.vault}",
                "nothing to undo; `vaultctx ledger` lists recorded changes",
            )
        changed = [
            path
            for entry in record.entries
            for path in snapshot.differing_paths(
                entry.after, snapshot.take(root / entry.path), entry.path
            )
        ]
        if changed:
            raise UndoConflictError(record, changed)
        diffs = record_diffs(store, record, reverse=True)
        if dry_run:
            return UndoReport(record, True, diffs)
        # Removing what the change created first frees the names a move back needs.
        ordered = sorted(record.entries, key=lambda entry: entry.before != MISSING)
        for entry in ordered:  # a folder on the way swapped for a link stops it before any write
            check_no_links(root, (root / entry.path).parent, entry.path)
        restorer = _Restorer(store, root)
        for entry in ordered:
            restorer.restore(entry)
        store.drop(record)
    return UndoReport(record, False, diffs)


class _Restorer:
    def __init__(self, store: LedgerStore, root: Path) -> None:
        self.store = store
        self.root = root

    def restore(self, entry: LedgerEntry) -> None:
        path = self.root / entry.path
        make_folders(self.root, path.parent)
        self._turn(path, entry.path, entry.after, entry.before)

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
