"""Where a vault's conversations are kept, and whether the file there is ours.

Conversations are not derived data: the index can be deleted and rebuilt from the vault, a
conversation cannot. So they live in their own SQLite file, in a ``conversations`` folder of the
per-user data dir (next to the index files, never one of them): ``vaultctx index --full``,
a deleted index or a ``--db`` elsewhere never touches it. The file is named like the vault's
index (``<vault name>-<digest of its resolved path>.db``), the folder is 0700 and the file 0600:
it holds what a person asked and was told.

A file at that path is written only when it is provably ours: absent, empty (a crash before the
first write), or a SQLite file whose header carries our ``application_id``. The store stamps the
id before anything else is written, in rollback-journal mode, so it is in the main file's header
from the first transaction on and 100 bytes of plain file I/O are enough to check it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from enum import Enum
from pathlib import Path

import platformdirs

from vaultctx.config import APP_NAME, default_db_path
from vaultctx.errors import VaultctxError

# "vcnv" in ASCII; the index uses "vctx" (0x76637478).
APPLICATION_ID = 0x76636E76
FOLDER_NAME = "conversations"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100
_APPLICATION_ID_OFFSET = 68


class StoreFileKind(Enum):
    ABSENT = "absent"
    EMPTY = "empty"
    OURS = "ours"


class NotAConversationStoreError(VaultctxError):
    """The store's path holds something vaultctx did not create; it is left as it is."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(
            f"{path} {what}, so it is not a vaultctx conversation store; vaultctx never "
            "overwrites or deletes a file it did not create",
            f"move that file out of {path.parent} and run the command again",
        )


class StoreUnwritableError(VaultctxError):
    """The store's folder or file cannot be created or written."""


def conversations_path(vault: Path) -> Path:
    """The conversation store of ``vault``: ``<user data dir>/conversations/<name>-<digest>.db``,
    the same name as the vault's default index, in a folder of its own."""
    folder = Path(platformdirs.user_data_dir(APP_NAME)) / FOLDER_NAME
    return folder / default_db_path(vault).name


def classify_store_file(path: Path) -> StoreFileKind:
    """What is at ``path``; ``NotAConversationStoreError`` for anything that is not ours, a
    symbolic link included (the folder is private: a link there was not made by vaultctx)."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # the folder is missing, or is a file
        return StoreFileKind.ABSENT
    except OSError as exc:
        raise NotAConversationStoreError(path, f"cannot be examined ({exc.strerror})") from exc
    if stat.S_ISLNK(info.st_mode):
        raise NotAConversationStoreError(path, "is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise NotAConversationStoreError(path, "is not a regular file")
    if info.st_size == 0:
        return StoreFileKind.EMPTY
    try:
        with open(path, "rb") as handle:
            header = handle.read(_HEADER_BYTES)
    except OSError as exc:
        raise NotAConversationStoreError(path, f"cannot be read ({exc.strerror})") from exc
    if len(header) < _HEADER_BYTES or not header.startswith(_SQLITE_MAGIC):
        raise NotAConversationStoreError(path, "is not a SQLite database")
    found = int.from_bytes(header[_APPLICATION_ID_OFFSET : _APPLICATION_ID_OFFSET + 4], "big")
    if found != APPLICATION_ID:
        raise NotAConversationStoreError(
            path, f"is a SQLite database with another application_id ({found:#x})"
        )
    return StoreFileKind.OURS


def prepare_private_file(path: Path) -> None:
    """Create the folder (0700) and an empty store file (0600) when missing; tighten both when
    an earlier run, or the user's umask, left them wider."""
    folder = path.parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _restrict(folder, 0o700)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, flags, 0o600))
    except OSError as exc:
        raise StoreUnwritableError(
            f"cannot create the conversation store {path} ({exc.strerror})",
            f"make {folder} writable for your user, or free some disk space",
        ) from exc
    _restrict(path, 0o600)


def _restrict(path: Path, allowed: int) -> None:
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & ~allowed:
            os.chmod(path, mode & allowed)
