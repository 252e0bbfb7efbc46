"""Several changes to the vault recorded as one ledger record, so one undo reverts them all.

An approval flow that writes five accepted suggestions into four notes, a P.A.R.A plan that moves
forty notes, a triage run that files a dozen signals: the user decided once, so undo takes it
back at once. The record holds, for every path the batch touched, its state before the batch's
first touch and after its last (a folder the batch created, empty or not, is recorded as that
folder), so undo needs nothing new: it compares the "after" with the disk and writes the
"before" back.

The ledger's lock is held from the first read to the record, as for a single change. Each step
is journalled (fsynced) before it is made (``write_ahead.py``): a batch killed after 23 of 200
moves leaves an interrupted record of exactly those 23, which one undo takes back. A step that
fails stops the batch; what the steps before it did is still recorded (and undoable) before the
error reaches the caller.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from vaultctx.atomic_write import _default_mode
from vaultctx.ledger import snapshot
from vaultctx.ledger.changes import free_trash_name
from vaultctx.ledger.context import Change, ChangeContext
from vaultctx.ledger.snapshot import MISSING
from vaultctx.ledger.write_ahead import FOLDER, WriteAhead
from vaultctx.vault.writes import (
    TRASH_FOLDER,
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
        self._journal: WriteAhead | None = None
        self._lock: AbstractContextManager[None] | None = None
        self.paths: list[str] = []
        self.notices: list[str] = []
        self.change: Change | None = None

    def __enter__(self) -> ChangeBatch:
        self._lock = self._changer.store.locked()
        self._lock.__enter__()
        try:
            self._journal = WriteAhead(self._changer.store, self._root, self._context, self._kind)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._lock is not None and self._journal is not None
        try:
            record, notices = self._journal.finish()
            self.change = Change(record, self._kind, list(dict.fromkeys(self.paths)))
            self.change.notices.extend([*self.notices, *notices])
        finally:
            self._lock.__exit__(exc_type, exc, tb)

    @property
    def _ahead(self) -> WriteAhead:
        assert self._journal is not None, "use the batch inside its with block"
        return self._journal

    # -- the steps ---------------------------------------------------------------------------

    def create(self, path: str, content: str) -> str:
        """A new note (missing folders created); anything at the path is an error. Returns the
        vault-relative path written."""
        data = content.encode("utf-8")
        self._changer._check_content(data)
        target = self._changer._confine(path)
        if exists(target.absolute):
            raise already_exists(target.relative, "choose another path")
        mode = _default_mode()
        self._ahead.add_blob(data)
        with self._ahead.step([(target.absolute, snapshot.file_state(data, mode))]):
            make_folders(self._root, target.absolute.parent)
            create_file(target.absolute, data, mode, target.relative)
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
        with self._ahead.step([(target.absolute, FOLDER)]):
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
            try:
                self._replace(target.absolute, target.relative, old, new)
            except ContentChangedError:
                if attempt == _CAS_ATTEMPTS - 1:
                    raise
                continue
            self.paths.append(target.relative)
            return True
        return False  # pragma: no cover - the loop returns or raises

    def _replace(self, absolute: Path, shown: str, old: bytes, new: bytes) -> None:
        """``absolute`` from ``old`` to ``new``, journalled: a root not yet tracked starts at
        exactly the bytes the replacement is computed from and compared against."""
        mode = file_mode(absolute)
        self._ahead.add_blob(old)
        self._ahead.add_blob(new)
        read = (absolute, snapshot.file_state(old, mode))
        with self._ahead.step([(absolute, snapshot.file_state(new, mode))], read=read):
            replace_file(absolute, new, expected=old, mode=mode, shown=shown)

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
        self._move_one(src.relative, dst.relative)
        return self._rewrite_links(rewrites, {src.relative: dst.relative})

    def trash(self, path: str) -> str:
        """A note (not a folder) moved into the vault's ``.trash/`` as ``NoteChanger.trash_path``
        does, a taken name numbered; links to it are left alone, as a deletion leaves them.
        Returns where it went."""
        src = self._changer._confine(path)
        if not exists(src.absolute) or os.path.isdir(src.absolute):
            raise NoteChangeError(
                f"{src.relative} is not a note; nothing was moved to {TRASH_FOLDER}/",
                "check the path",
            )
        trash = self._root / TRASH_FOLDER
        if os.path.islink(trash) or (exists(trash) and not os.path.isdir(trash)):
            raise NoteChangeError(
                f"{TRASH_FOLDER} in the vault is not a folder (a file or a link is there)",
                f"move {TRASH_FOLDER} away, then try again",
            )
        destination = free_trash_name(trash, src.absolute.name).relative_to(self._root)
        self._move_one(src.relative, destination.as_posix())
        return destination.as_posix()

    def _move_one(self, source: str, destination: str) -> None:
        old_at, new_at = self._root / source, self._root / destination
        moved = snapshot.take(old_at, self._ahead.blobs)
        with self._ahead.step([(old_at, MISSING), (new_at, moved)]):
            make_folders(self._root, new_at.parent)
            rename(old_at, new_at, destination)
        self.paths += [source, destination]

    def move_notes(self, moves: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """Several notes moved (source -> destination); links to any of them in other notes
        follow. The links are planned once for all the moves: one read of the vault, where
        ``move`` per note would read it once per note (200 moves in a 14,000-note vault).

        A move that cannot be made (its note gone or a folder, its destination taken, refused,
        or named by an earlier move too) is left out and its reason returned under its source;
        the others are made. Returns (notes whose links were rewritten, refused moves)."""
        valid: dict[str, str] = {}
        refused: dict[str, str] = {}
        taken: set[str] = set()
        for source, destination in moves.items():
            try:
                src = self._changer._confine(source)
                if not exists(src.absolute) or os.path.isdir(src.absolute):
                    raise NoteChangeError(f"{src.relative} is not a note any more", "list again")
                dst = self._changer._confine(destination)
                if exists(dst.absolute) or dst.relative.casefold() in taken:
                    raise destination_taken(dst.relative)
                if src.relative in valid:
                    raise NoteChangeError(f"{src.relative} is moved once already", "list again")
            except NoteChangeError as exc:
                refused[source] = exc.message
                continue
            valid[src.relative] = dst.relative
            taken.add(dst.relative.casefold())
        if not valid:
            return [], refused
        rewrites = self._changer._plan_link_rewrites(valid)
        for source, destination in valid.items():
            self._move_one(source, destination)
        return self._rewrite_links(rewrites, valid), refused

    def _rewrite_links(
        self, rewrites: list[tuple[str, str, bytes, bytes]], moved: Mapping[str, str]
    ) -> list[str]:
        rewritten: list[str] = []
        for old_path, new_path, old, new in rewrites:
            try:
                self._replace(self._root / new_path, new_path, old, new)
            except (NoteChangeError, OSError):
                self.notices.append(f"{new_path} changed meanwhile: its links were not rewritten")
                continue
            if old_path not in moved:  # a moved note is listed at its new path
                rewritten.append(new_path)
                self.paths.append(new_path)
        return rewritten


__all__ = ["ChangeBatch"]
