"""Log files only their owner can read: ``0600`` files in ``0700`` folders, private from the start.

What vaultctx logs can hold note text: an external MCP server's stderr echoes the tool calls a
model made with passages of the user's notes. So a log is created with those modes (never made
and then ``chmod``-ed, which leaves a moment when others can open it), every missing folder on
the way is created ``0700``, and an existing folder or file left wider (by an earlier version, or
by hand) is tightened. A link, something other than a folder or a regular file, or anything owned
by someone else at the log's place is refused, never followed or written through. On Windows,
which has no such modes, the file lives in the user's own profile and is opened plainly.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from vaultctx.errors import VaultctxError

FOLDER_MODE = 0o700
FILE_MODE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted at the log's name must not block us
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class PrivateLogError(VaultctxError):
    """The log's folder or file is not one vaultctx can keep private."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"cannot keep the log {path} private: {problem}",
            f"remove {path} (vaultctx creates it again, readable by you only) and try again",
        )


def open_private_log(path: Path, *, limit: int | None = None) -> BinaryIO:
    """``path`` opened for appending, created ``0600`` in a ``0700`` folder; emptied first when
    it already holds more than ``limit`` bytes."""
    if os.name != "posix":
        path.parent.mkdir(parents=True, exist_ok=True)
        too_big = limit is not None and path.is_file() and path.stat().st_size > limit
        return path.open("wb" if too_big else "ab")
    folder = private_folder(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | _NONBLOCK | _CLOEXEC
    try:
        fd = _open_in(folder, path.name, flags, FILE_MODE)
    except OSError as exc:
        raise PrivateLogError(path, _why(exc)) from exc
    try:
        info = _checked(path, fd, stat.S_ISREG, "it is not a regular file", FILE_MODE)
        if limit is not None and info.st_size > limit:
            os.ftruncate(fd, 0)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def private_folder(folder: Path) -> Path:
    """``folder``, created (with each missing parent) ``0700``, or checked to be a real folder
    of this user's and tightened to ``0700`` when group or others could enter it."""
    missing: list[Path] = []
    probe = folder
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for new in reversed(missing):
        try:
            os.mkdir(new, FOLDER_MODE)  # the umask can only narrow this further
        except FileExistsError:
            pass  # made meanwhile; what is there is checked below
        except OSError as exc:
            raise PrivateLogError(folder, _why(exc)) from exc
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        raise PrivateLogError(folder, _why(exc)) from exc
    try:
        _checked(folder, fd, stat.S_ISDIR, "it is not a folder", FOLDER_MODE)
    finally:
        os.close(fd)
    return folder


def _open_in(folder: Path, name: str, flags: int, mode: int) -> int:
    """Open ``name`` inside ``folder`` through the folder's own descriptor where the system has
    them, so the folder cannot be swapped for a link between its check and the open."""
    if os.open not in os.supports_dir_fd:
        return os.open(folder / name, flags, mode)
    folder_fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    try:
        return os.open(name, flags, mode, dir_fd=folder_fd)
    finally:
        os.close(folder_fd)


def _checked(
    path: Path, fd: int, is_kind: Callable[[int], bool], wrong_kind: str, mode: int
) -> os.stat_result:
    """The status of ``path``, open as ``fd``: refused unless it is of the right kind and the
    user's own, and tightened to ``mode`` when group or others could use it."""
    info = os.fstat(fd)
    if not is_kind(info.st_mode):
        raise PrivateLogError(path, wrong_kind)
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise PrivateLogError(path, f"it belongs to another user (uid {info.st_uid})")
    if stat.S_IMODE(info.st_mode) & ~mode:
        os.fchmod(fd, mode)
    return info


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "it is a symbolic link, or a file stands where a folder should"
    if exc.errno == errno.ENXIO:  # a FIFO or a socket
        return "it is not a regular file"
    return exc.strerror or str(exc)
