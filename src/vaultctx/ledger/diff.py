"""A recorded change as unified diffs, one per file: what ``vaultctx ledger show`` prints and
what ``vaultctx undo --dry-run`` would do."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any, Literal

from vaultctx.ledger import snapshot
from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, State
from vaultctx.ledger.store import LedgerRecord, LedgerStore

FileChange = Literal["added", "removed", "modified"]


@dataclass(frozen=True)
class FileDiff:
    """One file's change: ``diff`` is a unified diff of its text ("" for binary content)."""

    path: str
    change: FileChange
    diff: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_diffs(
    store: LedgerStore, record: LedgerRecord, *, reverse: bool = False
) -> list[FileDiff]:
    """The record's change (or, ``reverse``, its undo) file by file."""
    diffs = []
    for entry in record.entries:
        old, new = (entry.after, entry.before) if reverse else (entry.before, entry.after)
        old_files, new_files = _files(old, entry.path), _files(new, entry.path)
        for path in sorted(set(old_files) | set(new_files)):
            before, after = old_files.get(path, MISSING), new_files.get(path, MISSING)
            if before == after:
                continue
            change: FileChange = (
                "added" if before == MISSING else "removed" if after == MISSING else "modified"
            )
            diffs.append(FileDiff(path, change, _unified(store, path, before, after)))
    return diffs


def _files(state: State, prefix: str) -> dict[str, State]:
    return {
        path: item
        for path, item in snapshot.files_in(state, prefix)
        if not isinstance(item, FolderState)
    }


def _unified(store: LedgerStore, path: str, before: State, after: State) -> str:
    old, new = _text(store, before), _text(store, after)
    if old is None or new is None:
        return ""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}" if before != MISSING else "/dev/null",
        tofile=f"b/{path}" if after != MISSING else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _text(store: LedgerStore, state: State) -> str | None:
    if not isinstance(state, FileState):
        return ""
    try:
        return store.blob(state.sha256).decode("utf-8")
    except UnicodeDecodeError:
        return None
