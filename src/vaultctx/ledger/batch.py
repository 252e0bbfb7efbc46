"""Several changes to the vault recorded as one ledger record, so one undo reverts them all.

An approval flow that writes five accepted suggestions into four notes, a P.A.R.A plan that moves
forty notes, a triage run that files a dozen signals: the user decided once, so undo takes it
back at once. The record holds, for every path the batch touched, its state before the batch's
first touch and after its last (a folder the batch created is recorded as that folder), so undo
needs nothing new: it compares the "after" with the disk and writes the "before" back.

The ledger's lock is held from the first read to the record, as for a single change. A step
that fails stops the batch; what the steps before it did is still recorded (and undoable) before
the error reaches the caller.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from vaultctx.atomic_write import _default_mode
from vaultctx.ledger import snapshot
from vaultctx.ledger.context import Change, ChangeContext
from vaultctx.ledger.snapshot import State
from vaultctx.ledger.store import LedgerEntry
from vaultctx.vault.writes import (
    ContentChangedError,
    NoteChangeError,
    already_exists,
    create_file,
    destination_taken,
    exists,
    file_mode,
    make_folders,
    read_file,
    rename,
    replace_file,
)

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from vaultctx.ledger.changes import NoteChanger

_CAS_ATTEMPTS = 3


class ChangeBatch:
    """Use as ``with vault.change_batch(context, "review-links") as batch: batch.rewrite(...)``;
    afterwards ``batch.change`` says what was recorded (``record_id`` None: nothing changed)."""

    def __init__(self, changer: NoteChanger, context: ChangeContext, kind: str) -> None:
        if not context.label.strip():
            raise ValueError("a change needs a label")
        self._changer = changer
        self._root = changer.root
        self._context = context
        self._kind = kind
        self._before: dict[str, State] = {}
        self._blobs: dict[str, bytes] = {}
        self._lock: AbstractContextManager[None] | None = None
        self.paths: list[str] = []
        self.notices: list[str] = []
        self.change: Change | None = None

    def __enter__(self) -> ChangeBatch:
        self._lock = self._changer.store.locked()
        self._lock.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._lock is not None
        try:
            entries = [
                LedgerEntry(path, before, snapshot.take(self._root / path, self._blobs))
                for path, before in self._before.items()
            ]
            record = self._changer._record(self._context, self._kind, entries, self._blobs)
            self.change = Change(record, self._kind, list(dict.fromkeys(self.paths)))
            self.change.notices.extend(self.notices)
        finally:
            self._lock.__exit__(exc_type, exc, tb)

    # -- the steps ---------------------------------------------------------------------------

    def create(self, path: str, content: str) -> str:
        """A new note (missing folders created); anything at the path is an error. Returns the
        vault-relative path written."""
        data = content.encode("utf-8")
        self._changer._check_content(data)
        target = self._changer._confine(path)
        if exists(target.absolute):
            raise already_exists(target.relative, "choose another path")
        self._track(target.absolute)
        make_folders(self._root, target.absolute.parent)
        create_file(target.absolute, data, _default_mode(), target.relative)
        self.paths.append(target.relative)
        return target.relative

    def create_folder(self, path: str) -> bool:
        """A folder (and its missing parents), recorded so undo removes it while it is as the
        batch left it. Returns whether it was created (False: it is a folder already)."""
        target = self._changer._confine(path, folder=True)
        if exists(target.absolute):
            if os.path.isdir(target.absolute):
                return False
            raise NoteChangeError(
                f"{target.relative} is a file, not a folder; nothing was changed",
                "move or rename that file, or choose another folder",
            )
        self._track(target.absolute)
        make_folders(self._root, target.absolute)
        self.paths.append(target.relative)
        return True

    def rewrite(self, path: str, compute: Callable[[str], str]) -> bool:
        """The note's text passed through ``compute`` and written back if it changed, provided
        the file still holds what was read (a user's save in between is re-read, never lost).
        Returns whether anything was written."""
        target = self._changer._confine(path)
        for attempt in range(_CAS_ATTEMPTS):
            old = read_file(target.absolute, target.relative)
            try:
                text = old.decode("utf-8")
            except UnicodeDecodeError:
                raise NoteChangeError(
                    f"{target.relative} is not UTF-8 text; nothing was changed in it",
                    "convert it to UTF-8, or leave it out",
                ) from None
            new = compute(text).encode("utf-8")
            if new == old:
                return False
            self._changer._check_content(new, "The note would be too large: it")
            mode = file_mode(target.absolute)
            try:
                replace_file(target.absolute, new, expected=old, mode=mode, shown=target.relative)
            except ContentChangedError:
                if attempt == _CAS_ATTEMPTS - 1:
                    raise
                continue
            self._track_file(target.relative, old, mode)
            self.paths.append(target.relative)
            return True
        return False  # pragma: no cover - the loop returns or raises

    def move(self, source: str, destination: str) -> list[str]:
        """A note moved (not a folder); links to it in other notes follow. Returns the notes
        whose links were rewritten."""
        src = self._changer._confine(source)
        if not exists(src.absolute):
            raise NoteChangeError(
                f"{src.relative} does not exist; nothing was moved", "check the path"
            )
        if os.path.isdir(src.absolute):
            raise NoteChangeError(
                f"{src.relative} is a folder; a batch moves notes only", "move the notes in it"
            )
        dst = self._changer._confine(destination)
        if exists(dst.absolute):
            raise destination_taken(dst.relative)
        rewrites = self._changer._plan_link_rewrites({src.relative: dst.relative})
        self._track(src.absolute)
        self._track(dst.absolute)
        make_folders(self._root, dst.absolute.parent)
        rename(src.absolute, dst.absolute, dst.relative)
        self.paths += [src.relative, dst.relative]
        rewritten: list[str] = []
        for old_path, new_path, old, new in rewrites:
            absolute = self._root / new_path
            try:
                mode = file_mode(absolute)
                replace_file(absolute, new, expected=old, mode=mode, shown=new_path)
            except (NoteChangeError, OSError):
                self.notices.append(f"{new_path} changed meanwhile: its links were not rewritten")
                continue
            if old_path != src.relative:  # the moved note itself is recorded at its new path
                self._track_file(new_path, old, mode)
                rewritten.append(new_path)
                self.paths.append(new_path)
        return rewritten

    # -- what the record holds --------------------------------------------------------------

    def _track(self, absolute: Path) -> None:
        """Remember the state of ``absolute`` (or of the outermost folder that a write there
        would create) before the batch first changes it."""
        folder = absolute.parent
        top = absolute
        while folder != self._root and not exists(folder):
            top = folder
            folder = folder.parent
        relative = top.relative_to(self._root).as_posix()
        if not self._tracked(relative):
            self._before[relative] = snapshot.take(top, self._blobs)

    def _track_file(self, relative: str, data: bytes, mode: int) -> None:
        """Like ``_track`` for a file just replaced: the record's "before" is exactly the bytes
        the replacement was computed from and compared against."""
        if not self._tracked(relative):
            state = snapshot.file_state(data, mode)
            self._blobs[state.sha256] = data
            self._before[relative] = state

    def _tracked(self, relative: str) -> bool:
        return any(relative == path or relative.startswith(path + "/") for path in self._before)


__all__ = ["ChangeBatch"]
