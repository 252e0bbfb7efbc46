"""Changing files in the vault on someone else's behalf (a model's tool call): confined and atomic.

Every path goes through the read confinement first (``vault.paths``: no absolute, drive, UNC or
``..`` spelling in any encoding, no control characters, no over-long names, nothing vaultctx does
not serve), and then through stricter rules of its own, because a write can do harm a read
cannot: no component of the path may be a symbolic link (a planted ``notes -> ~/.ssh`` would
otherwise receive the note), and no control file (a dotfile or dot-folder, ``vaultctx.toml``) nor
anything the ignore rules exclude is touched (``vault.private_paths``). Files are never opened
through a link (``O_NOFOLLOW``), new contents are staged in a fresh temporary file beside the
target, fsynced and renamed over it, and a replacement happens only if the file still holds the
bytes the change was computed from (so a save made by the user in between is never overwritten).

Nothing here records anything: ``ledger.changes`` (``NoteChanger``) snapshots around these
operations for the AI change ledger.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from vaultctx.vault.durable import stage_file, sync_folder
from vaultctx.vault.errors import VaultError
from vaultctx.vault.paths import (
    PATH_SUGGESTION,
    UnsafePathError,
    normalize_vault_path,
)
from vaultctx.vault.private_paths import FIX, private_reason
from vaultctx.vault.scanner import IgnoreRules, is_indexed_name

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_NON_BLOCKING = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted at a name must not hang a read
# Folders a change may never name, whatever the ignore rules say (the trash is written only by
# ``trash``, under a name vaultctx chooses).
PROTECTED_FOLDERS = (".obsidian", ".git", ".trash")
TRASH_FOLDER = ".trash"
MAX_TRASH_NAMES = 1000

# The texts a tool passes on to the model (the agent's tool table uses the same wording).
FIND_REPLACE_TOGETHER = (
    "`find` and `replace` must be given together. To replace the whole note, use `content` alone."
)
CONTENT_OR_FIND_REQUIRED = "Either `content` or `find`/`replace` is required."
_LOOK_IT_UP = "check the path with a search or a folder listing; paths are vault-relative"


class NoteChangeError(VaultError):
    """A change to the vault was refused or failed before anything was written; the message is
    written to be shown to a model as it stands (it says that nothing changed)."""


def already_exists(
    shown: str, fix: str = "choose another path, or change the existing note instead"
) -> NoteChangeError:
    """The refusal to create over anything at ``shown`` (one wording for every check)."""
    return NoteChangeError(f"File already exists: {shown}", fix)


def destination_taken(shown: str) -> NoteChangeError:
    """The refusal to move onto anything at ``shown``."""
    return NoteChangeError(
        f"A file already exists at the destination: {shown}",
        "choose another destination, or move or delete what is there first",
    )


class ContentChangedError(NoteChangeError):
    """The file no longer holds the bytes a replacement was computed from (someone saved it)."""


@dataclass(frozen=True)
class WritePath:
    """A path a change may write: ``relative`` as given (normalised), ``absolute`` under the
    vault's real root; no component of it is a symbolic link."""

    relative: str
    absolute: Path


def vault_root(vault: Path) -> Path:
    return Path(os.path.realpath(vault))


# Written though not indexed: Obsidian's Bases views (YAML; the Second Brain's dashboard is one).
WRITTEN_NOT_INDEXED = (".base",)


def is_writable_name(name: str) -> bool:
    return is_indexed_name(name) or name.lower().endswith(WRITTEN_NOT_INDEXED)


def confine_write_path(
    root: Path, raw: str, rules: IgnoreRules, *, folder: bool = False
) -> WritePath:
    """``raw`` as a path a change may touch, or ``NoteChangeError`` saying why not.

    ``folder`` allows a folder (move, trash); otherwise the path must name a note type vaultctx
    serves (``.md``, ``.txt``, …). The file need not exist.
    """
    try:
        relative = normalize_vault_path(raw)
    except UnsafePathError as exc:
        raise NoteChangeError(exc.message, exc.suggestion) from exc
    parts = relative.split("/")
    if parts[0].casefold() in PROTECTED_FOLDERS or any(p == ".git" for p in parts):
        raise NoteChangeError(
            f"path refused: {parts[0]}/ holds Obsidian's, git's or the trash's own files "
            f"({relative}); nothing was changed",
            PATH_SUGGESTION,
        )
    reason = private_reason(relative, rules, folder=None if folder else False)
    if reason is not None:
        raise NoteChangeError(f"path refused: {relative} {reason}; nothing was changed", FIX)
    if not folder and not is_writable_name(parts[-1]):
        raise NoteChangeError(
            f"path refused: {relative} is not a note type vaultctx writes (.md, .txt, .csv, …); "
            "nothing was changed",
            PATH_SUGGESTION,
        )
    absolute = root.joinpath(*parts)
    check_no_links(root, absolute, relative)
    return WritePath(relative, absolute)


def check_no_links(root: Path, absolute: Path, shown: str) -> None:
    """Refuse ``absolute`` if it or any folder on the way to it is a symbolic link (or not a
    folder): a write never goes through a link, inside the vault or out of it."""
    current = root
    for part in absolute.relative_to(root).parts:
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return  # the rest does not exist yet: created a folder at a time, each checked
        except NotADirectoryError as exc:
            raise NoteChangeError(
                f"path refused: a part of {shown} is a file, not a folder; nothing was changed",
                PATH_SUGGESTION,
            ) from exc
        if stat.S_ISLNK(info.st_mode):
            raise NoteChangeError(
                f"path refused: {current.relative_to(root).as_posix()} is a symbolic link, and "
                "changes are never written through a link; nothing was changed",
                "change the note at the place the link leads to, by its own path",
            )


def exists(path: Path) -> bool:
    return os.path.lexists(path)


def read_file(path: Path, shown: str) -> bytes:
    """The bytes of the regular file ``path``, never through a link; ``File not found`` else."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_FOLLOW | _BINARY | _NON_BLOCKING)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise not_found(shown) from None
    except OSError as exc:
        if os.path.islink(path):
            raise not_found(shown) from exc
        raise NoteChangeError(
            f"cannot read {shown} ({exc.strerror}); nothing was changed",
            "check the file's permissions",
        ) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder opens too, and reads as an error
        os.close(fd)
        raise not_found(shown)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def file_mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def not_found(shown: str) -> NoteChangeError:
    return NoteChangeError(f"File not found: {shown}", _LOOK_IT_UP)


def make_folders(root: Path, folder: Path) -> None:
    """Create ``folder`` (under ``root``) and its missing parents a level at a time, each checked
    to be a real folder and not a link before the next is made in it."""
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        try:
            os.mkdir(current, 0o777)
        except FileExistsError:
            pass
        except OSError as exc:
            raise NoteChangeError(
                f"cannot create the folder {current.relative_to(root).as_posix()} "
                f"({exc.strerror}); nothing was changed",
                "make the vault folder writable",
            ) from exc
        info = os.lstat(current)
        if not stat.S_ISDIR(info.st_mode):
            raise NoteChangeError(
                f"{current.relative_to(root).as_posix()} is not a folder (a file or a link is "
                "there); nothing was changed",
                "choose another path",
            )


def _staged(folder: Path, name: str, data: bytes, mode: int) -> str:
    """A fresh temporary file in ``folder`` holding ``data`` (fsynced, ``mode``), named so that
    ``ledger.undo`` recognises a leftover one: its path."""
    return stage_file(folder, data, mode, prefix=f".{name}.", suffix=".vaultctx-tmp")


def _discard(staging: str) -> None:
    """Remove a staged file that did not take its place (``""``: it did)."""
    if staging:
        with contextlib.suppress(OSError):
            os.unlink(staging)


def create_file(path: Path, data: bytes, mode: int, shown: str) -> None:
    """Create ``path`` holding ``data``, atomically and only if nothing is there (a link planted
    at the name included): staged, then hard-linked into place, which never replaces anything."""
    staging = _staged(path.parent, path.name, data, mode)
    try:
        try:
            os.link(staging, path, follow_symlinks=False)
        except FileExistsError:
            raise already_exists(shown) from None
        except OSError:  # a file system without hard links: exclusive create, then rename over
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | _BINARY
            try:
                os.close(os.open(path, flags, mode))
            except FileExistsError:
                raise already_exists(shown) from None
            os.replace(staging, path)
            staging = ""
    finally:
        _discard(staging)
    sync_folder(path.parent)


def replace_file(path: Path, data: bytes, *, expected: bytes, mode: int, shown: str) -> None:
    """Replace ``path``'s contents by ``data`` if it still holds ``expected``.

    The new file is staged and fsynced first; the comparison is made right before the rename, so
    a save by the user meanwhile raises ``ContentChangedError`` and is kept. The rename replaces
    the name itself: a link swapped in at the name is replaced, never followed.
    """
    staging = _staged(path.parent, path.name, data, mode)
    try:
        if read_file(path, shown) != expected:
            raise ContentChangedError(
                f"{shown} changed while it was being edited; nothing was changed",
                "read it again and retry",
            )
        os.replace(staging, path)
        staging = ""
    finally:
        _discard(staging)
    sync_folder(path.parent)


def remove_file(path: Path, *, expected: bytes, shown: str) -> None:
    """Delete ``path`` only if it still holds ``expected`` (and is a regular file, not a link)."""
    if read_file(path, shown) != expected:
        raise ContentChangedError(
            f"{shown} changed meanwhile, so it was not removed", "look at it and decide yourself"
        )
    os.unlink(path)


def rename(source: Path, destination: Path, shown: str) -> None:
    """Move ``source`` to ``destination``, which must not exist (a file is linked into place,
    which refuses an existing name atomically; a folder is checked right before the rename)."""
    if exists(destination):
        raise destination_taken(shown)
    if os.path.isdir(source) and not os.path.islink(source):
        os.rename(source, destination)
    else:
        try:
            os.link(source, destination, follow_symlinks=False)
        except FileExistsError:
            raise destination_taken(shown) from None
        except OSError:
            os.rename(source, destination)
        else:
            os.unlink(source)
    sync_folder(source.parent)
    sync_folder(destination.parent)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
