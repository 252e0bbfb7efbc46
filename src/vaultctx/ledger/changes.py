"""The changes a model (the agent, an MCP client) may make to the vault, each one recorded.

Every operation holds the ledger's lock from its first read to its record, so changes from two
processes are recorded in the order they happened and undo always reverts the newest. Each step
is journalled in the ledger (fsynced) before it is made (``write_ahead.py``): a change that
cannot be recorded is not made, and one killed midway is listed as interrupted. Each
records the exact bytes it read and wrote (the state a replacement was computed from is the one
it compared against right before the rename), so a user's save in between is never recorded as
the model's, and never undone. A change that fails, or changes nothing, is not recorded.

Bounds: a content argument, and the note an edit or append produces, are at most
``max_file_bytes`` (5 MB by default, the indexer's own limit); the snapshots of one change are
at most ``MAX_RECORD_BYTES`` (50 MB of distinct content): a larger folder is refused before
anything moves, rather than moved without a way back.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from vaultctx.atomic_write import _default_mode
from vaultctx.config import Config
from vaultctx.ledger import snapshot
from vaultctx.ledger.context import SOURCES, Change, ChangeContext
from vaultctx.ledger.snapshot import MISSING, FolderState, State
from vaultctx.ledger.store import LedgerStore
from vaultctx.ledger.write_ahead import WriteAhead
from vaultctx.vault.link_rewrite import MoveLinks
from vaultctx.vault.links import vault_file_paths
from vaultctx.vault.private_paths import FIX, tree_reason
from vaultctx.vault.scanner import IgnoreRules, is_served_path, load_ignore_rules
from vaultctx.vault.writes import (
    TRASH_FOLDER,
    ContentChangedError,
    NoteChangeError,
    WritePath,
    already_exists,
    confine_write_path,
    create_file,
    destination_taken,
    exists,
    file_mode,
    make_folders,
    read_file,
    rename,
    replace_file,
    vault_root,
)

MAX_RECORD_BYTES = 50_000_000
# How an edit turns a note's bytes into new bytes, and how many occurrences it replaced.
_Compute = Callable[[bytes], tuple[bytes, int]]
_CAS_ATTEMPTS = 3
_SHOWN_FIND_CHARS = 50


@dataclass
class _Recording:
    """The journal of one change, and (once closed) its record id and notices."""

    ahead: WriteAhead
    record_id: str | None = None
    notices: list[str] = field(default_factory=list)


class NoteChanger:
    """The change operations over one vault and its ledger."""

    def __init__(self, config: Config, store: LedgerStore) -> None:
        self.config = config
        self.store = store
        self.root = vault_root(config.vault)

    def _rules(self) -> IgnoreRules:
        return load_ignore_rules(self.config.vault, self.config.settings.ignore)[0]

    def _confine(self, raw: str, *, folder: bool = False) -> WritePath:
        return confine_write_path(self.root, raw, self._rules(), folder=folder)

    def _existing(self, raw: str) -> tuple[WritePath, bool]:
        """The note or folder ``raw`` names, which must exist, and whether it is a folder."""
        path = self._confine(raw, folder=True)
        if not exists(path.absolute):
            raise _not_found(path.relative)
        return path, os.path.isdir(path.absolute)

    def _check_content(self, data: bytes, what: str = "The content") -> None:
        limit = self.config.settings.max_file_bytes
        if len(data) > limit:
            raise NoteChangeError(
                f"{what} is too large: {len(data):,} bytes, over the limit of {limit:,} bytes "
                "(`max_file_bytes`); nothing was changed",
                "split it into several smaller notes",
            )

    @contextlib.contextmanager
    def _recorded(self, context: ChangeContext, kind: str) -> Iterator[_Recording]:
        """Hold the ledger, journal each step before it is made (``write_ahead.py``), and close
        the record afterwards, also when a later step fails."""
        _check_context(context)
        with self.store.locked():
            recording = _Recording(WriteAhead(self.store, self.root, context, kind))
            try:
                yield recording
            finally:
                recording.record_id, recording.notices = recording.ahead.finish()

    # -- one note ---------------------------------------------------------------------------

    def create_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """A new note; missing parent folders are created; anything at the path is an error."""
        _check_context(change)
        data = content.encode("utf-8")
        self._check_content(data)
        with self._recorded(change, "create") as recording:
            target = self._confine(path)
            if exists(target.absolute):
                raise already_exists(
                    target.relative,
                    "choose another path, or change the existing note with edit_note",
                )
            created = _missing_ancestors(self.root, target.absolute)
            mode = _default_mode()
            recording.ahead.add_blob(data)
            with recording.ahead.step([(target.absolute, snapshot.file_state(data, mode))]):
                make_folders(self.root, target.absolute.parent)
                try:
                    create_file(target.absolute, data, mode, target.relative)
                except BaseException:
                    _remove_empty_folders(created)
                    raise
        return Change(recording.record_id, "create", [target.relative], notices=recording.notices)

    def replace_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """The note's whole content replaced by ``content``."""
        _check_context(change)
        data = content.encode("utf-8")
        self._check_content(data)
        return self._rewrite(path, "replace", change, lambda old: (data, 1))

    def edit_note(self, path: str, find: str, replace: str, *, change: ChangeContext) -> Change:
        """Every occurrence of ``find`` replaced by ``replace``, in the note as it is now.

        In a note with CRLF line ends, a ``find`` written with LF that is not found as written
        is looked for with CRLF (and ``replace`` written so too).
        """
        _check_context(change)
        if not find:
            raise NoteChangeError(
                "`find` must not be empty. No changes were made.",
                "pass the exact text to replace, copied from read_note",
            )
        self._check_content(replace.encode("utf-8"), "The replacement text")

        def edited(old: bytes) -> tuple[bytes, int]:
            text = _note_text(old, path)
            wanted, instead = find, replace
            if wanted not in text and "\r\n" in text:
                wanted = _crlf(find)
                instead = _crlf(replace)
            count = text.count(wanted)
            if count == 0:
                shown = find[:_SHOWN_FIND_CHARS]
                raise NoteChangeError(
                    f'Could not find the text to replace: "{shown}..."\nNo changes were made. '
                    "Read the same file again with read_note and copy the exact text.",
                    "read the note again with read_note and pass text exactly as it appears",
                )
            return text.replace(wanted, instead).encode("utf-8"), count

        return self._rewrite(path, "edit", change, edited)

    def append_to_note(self, path: str, content: str, *, change: ChangeContext) -> Change:
        """``"\\n" + content`` added at the end of the note."""
        _check_context(change)
        addition = ("\n" + content).encode("utf-8")
        self._check_content(addition)
        return self._rewrite(path, "append", change, lambda old: (old + addition, 1))

    def _rewrite(self, path: str, kind: str, context: ChangeContext, compute: _Compute) -> Change:
        """Read, compute, and replace only if the file still holds what was read (retried a
        few times when the user saves in between)."""
        with self._recorded(context, kind) as recording:
            target = self._confine(path)
            for attempt in range(_CAS_ATTEMPTS):
                old = read_file(target.absolute, target.relative)
                new, count = compute(old)
                if new == old:
                    return Change(None, kind, [], replaced=count if kind == "edit" else 0)
                self._check_content(new, "The note would be too large: it")
                try:
                    self._replace(recording.ahead, target.absolute, target.relative, old, new)
                    break
                except ContentChangedError:
                    if attempt == _CAS_ATTEMPTS - 1:
                        raise
        return Change(
            recording.record_id,
            kind,
            [target.relative],
            replaced=count if kind == "edit" else 0,
            notices=recording.notices,
        )

    @staticmethod
    def _replace(ahead: WriteAhead, absolute: Path, shown: str, old: bytes, new: bytes) -> None:
        mode = file_mode(absolute)
        ahead.add_blob(old)
        ahead.add_blob(new)
        read = (absolute, snapshot.file_state(old, mode))
        with ahead.step([(absolute, snapshot.file_state(new, mode))], read=read):
            replace_file(absolute, new, expected=old, mode=mode, shown=shown)

    # -- files and folders ------------------------------------------------------------------

    def move_path(self, source: str, destination: str, *, change: ChangeContext) -> Change:
        """A note or folder moved; links to it in other notes follow, all in one record."""
        _check_context(change)
        with self._recorded(change, "move") as recording:
            ahead = recording.ahead
            src, is_folder = self._existing(source)
            dst = self._confine(destination, folder=is_folder)
            if exists(dst.absolute):
                raise destination_taken(dst.relative)
            if is_folder and (dst.relative + "/").startswith(src.relative + "/"):
                raise NoteChangeError(
                    f"cannot move the folder {src.relative} into itself ({dst.relative}); "
                    "nothing was changed",
                    "choose a destination outside the folder",
                )
            if is_folder:
                self._check_private_tree(src.relative, dst.relative)
            before_src = snapshot.take(src.absolute, ahead.blobs)
            _check_tree(before_src, src.relative)
            moved = _moved_paths(before_src, src.relative, dst.relative)
            rewrites = self._plan_link_rewrites(moved)
            rewrite_bytes = sum(len(new) for _, _, _, new in rewrites)
            self._check_record_size(ahead.blobs, rewrite_bytes, src.relative)

            created = _missing_ancestors(self.root, dst.absolute)
            edits = [(src.absolute, MISSING), (dst.absolute, before_src)]
            with ahead.step(edits, read=(src.absolute, before_src)):
                make_folders(self.root, dst.absolute.parent)
                try:
                    rename(src.absolute, dst.absolute, dst.relative)
                except BaseException:
                    _remove_empty_folders(created)
                    raise
            rewritten, notices = self._apply_link_rewrites(ahead, rewrites, moved)
        paths = [src.relative, dst.relative, *rewritten]
        return Change(
            recording.record_id,
            "move",
            paths,
            rewritten=rewritten,
            is_folder=is_folder,
            notices=[*notices, *recording.notices],
        )

    def _plan_link_rewrites(self, moved: dict[str, str]) -> list[tuple[str, str, bytes, bytes]]:
        """(path before the move, path after, bytes now, bytes with links rewritten) for every
        note whose links to moved files need rewriting. Only notes vaultctx serves are written."""
        paths = vault_file_paths(self.root)
        links = MoveLinks(paths, moved)
        rules = self._rules()
        plans = []
        for path in paths:
            if not path.lower().endswith(".md") or not is_served_path(path, rules):
                continue
            new_path = moved.get(path, path)
            if not is_served_path(new_path, rules):
                continue
            try:
                old = snapshot.read_no_follow(self.root / path)
                text = old.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            rewritten, count = links.rewrite(text, path)
            if count:
                plans.append((path, new_path, old, rewritten.encode("utf-8")))
        return plans

    def _apply_link_rewrites(
        self,
        ahead: WriteAhead,
        plans: list[tuple[str, str, bytes, bytes]],
        moved: Mapping[str, str],
    ) -> tuple[list[str], list[str]]:
        """Each rewrite its own journalled step (a moved note's is part of its new place)."""
        rewritten: list[str] = []
        notices: list[str] = []
        for old_path, new_path, old, new in plans:
            try:
                self._replace(ahead, self.root / new_path, new_path, old, new)
            except (NoteChangeError, OSError):
                notices.append(f"{new_path} changed meanwhile: its links were not rewritten")
                continue
            if old_path not in moved:
                rewritten.append(new_path)
        return rewritten, notices

    def trash_path(self, path: str, *, change: ChangeContext) -> Change:
        """A note or folder moved into the vault's ``.trash/`` (as Obsidian deletes by default);
        a name taken there gets a number: ``Plan 1.md``, ``Plan 2.md``, …"""
        _check_context(change)
        with self._recorded(change, "trash") as recording:
            ahead = recording.ahead
            src, is_folder = self._existing(path)
            if is_folder:
                self._check_private_tree(src.relative, None)
            trash = self.root / TRASH_FOLDER
            trash_existed = exists(trash)
            if trash_existed and (os.path.islink(trash) or not os.path.isdir(trash)):
                raise NoteChangeError(
                    f"{TRASH_FOLDER} in the vault is not a folder (a file or a link is there); "
                    "nothing was changed",
                    f"move {TRASH_FOLDER} away, or delete the note yourself",
                )
            before_src = snapshot.take(src.absolute, ahead.blobs)
            _check_tree(before_src, src.relative)
            self._check_record_size(ahead.blobs, 0, src.relative)
            destination = free_trash_name(trash, src.absolute.name)
            edits = [(src.absolute, MISSING), (destination, before_src)]
            with ahead.step(edits, read=(src.absolute, before_src)):
                if not trash_existed:
                    make_folders(self.root, trash)
                rename(src.absolute, destination, _relative(self.root, destination))
        return Change(
            recording.record_id,
            "trash",
            [src.relative, _relative(self.root, destination)],
            is_folder=is_folder,
            notices=recording.notices,
        )

    def _check_private_tree(self, source: str, destination: str | None) -> None:
        """Refuse to move (or, without ``destination``, delete) a folder carrying a control file
        or an ignored path along, or landing anything where the rules of this moment ignore it."""
        reason = tree_reason(self.root, source, self._rules(), destination)
        if reason is not None:
            raise NoteChangeError(f"path refused: {source} {reason}; nothing was changed", FIX)

    def _check_record_size(self, blobs: dict[str, bytes], extra: int, shown: str) -> None:
        total = sum(len(data) for data in blobs.values()) + extra
        if total > MAX_RECORD_BYTES:
            raise NoteChangeError(
                f"{shown} holds {total / 1e6:.1f} MB, more than the change ledger keeps for one "
                f"change ({MAX_RECORD_BYTES / 1e6:.0f} MB), so it could not be undone; nothing "
                "was changed",
                "move or delete it yourself (in Obsidian or a file manager), or a part at a time",
            )


def _check_context(context: ChangeContext) -> None:
    if context.source not in SOURCES:
        raise ValueError(f"ChangeContext.source must be one of {SOURCES}, not {context.source!r}")


def _not_found(shown: str) -> NoteChangeError:
    return NoteChangeError(
        f"File or folder not found: {shown}",
        "check the path with a search or a folder listing; paths are vault-relative",
    )


def _note_text(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteChangeError(
            f"{shown} is not UTF-8 text, so it cannot be edited by find and replace; nothing was "
            "changed",
            "replace its whole content instead, if that is what you want",
        ) from exc


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _missing_ancestors(root: Path, target: Path) -> list[Path]:
    """The folders above ``target`` that do not exist yet, outermost first."""
    missing = []
    folder = target.parent
    while folder != root and not exists(folder):
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


def _remove_empty_folders(folders: list[Path]) -> None:
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _check_tree(state: State, shown: str) -> None:
    """A folder holding a symbolic link is not moved: undo could not put the link back."""
    for path, item in snapshot.files_in(state, shown):
        if isinstance(item, snapshot.LinkState):
            raise NoteChangeError(
                f"{path} is a symbolic link or special file, which vaultctx does not move or "
                "delete; nothing was changed",
                "move or delete this folder yourself",
            )


def _moved_paths(state: State, source: str, destination: str) -> dict[str, str]:
    """Old path → new path of every file a move takes along."""
    if not isinstance(state, FolderState):
        return {source: destination}
    moved = {}
    for path, item in snapshot.files_in(state, source):
        if not isinstance(item, FolderState):
            moved[path] = destination + path[len(source) :]
    return moved


def free_trash_name(trash: Path, name: str) -> Path:
    stem, dot, extension = name.rpartition(".")
    if not stem:  # a folder, or a name without an extension
        stem, dot, extension = name, "", ""
    candidate = trash / name
    number = 1
    while exists(candidate):
        candidate = trash / f"{stem} {number}{dot}{extension}"
        number += 1
    return candidate


__all__ = ["MAX_RECORD_BYTES", "Change", "ChangeContext", "NoteChanger"]
