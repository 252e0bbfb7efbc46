"""Replace a file's contents atomically, without following a link someone else planted.

vaultctx writes into folders it does not control: a cloned repository's ``.mcp.json`` and
``.claude/settings.json``, the user's Codex and Claude settings. Such a folder can already hold a
symbolic link at any name we might write to, so a write that opens a fixed path (``<file>.bak``,
``<file>.tmp``) could land in ``~/.bashrc``. Here nothing is ever opened through a link: the new
contents are staged under a fresh ``mkstemp`` name and renamed over the file, and a backup is
created with ``O_EXCL``, which refuses any name that exists, a link included, so it moves on to the
next free number (which also keeps every earlier backup). The file itself may be a link the user
made (dotfile managers do this): it stays a link, and the write goes to its target only when that
target is a regular file the user owns.

This module imports nothing from vaultctx but its error type and ``vault.durable`` (the staged,
fsynced write it shares with the vault's own changes): every layer that saves a file uses it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from vaultctx.errors import VaultctxError
from vaultctx.vault.durable import replace_with_staged, sync_folder

MAX_BACKUPS = 1000
_NEW_FILE_MODE = 0o666  # what open() asks for; the umask takes away from it


class UnsafeWriteError(VaultctxError, OSError):
    """Writing ``path`` would follow a link to somewhere it should not go; nothing was written.

    Also an ``OSError``, like every other reason a file cannot be written."""

    def __init__(self, path: Path, problem: str, fix: str) -> None:
        """``problem`` continues a sentence whose subject is the path: "is a link to …"."""
        super().__init__(f"{path} {problem}", fix)
        self.path = path
        self.problem = problem
        self.fix = fix


def write_atomically(
    path: Path, data: str | bytes, *, mode: int | None = None, backup: bool = False
) -> Path | None:
    """Replace the contents of ``path`` by ``data`` (text is UTF-8); return the backup, if any.

    A reader sees the old contents or the new, never a mix, and a crash leaves one of them on
    disk (the data and the folder entry are fsynced). ``mode`` sets the permissions; without it an
    existing file keeps its own (a 0600 file holding tokens stays 0600) and a new one gets 0o666
    minus the umask. With ``backup`` the previous contents are first copied to ``<name>.bak``, or
    ``<name>.bak.1``, ``.bak.2``… when that exists. Raises ``UnsafeWriteError`` (an ``OSError``)
    when ``path`` is a link that must not be followed or is not a regular file.
    """
    target = checked_target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        current: os.stat_result | None = target.stat()
    except FileNotFoundError:
        current = None
    if mode is None:
        mode = stat.S_IMODE(current.st_mode) if current is not None else _default_mode()
    saved = _back_up(path, target, stat.S_IMODE(current.st_mode)) if backup and current else None
    payload = data.encode("utf-8") if isinstance(data, str) else data
    replace_with_staged(target, payload, mode, prefix=f".{target.name}.", suffix=".tmp")
    sync_folder(target.parent)
    return saved


def checked_target(path: Path) -> Path:
    """The file a write to ``path`` lands in: ``path``, or the target of the link ``path`` is.

    Callers that read the file before rewriting it call this first, so a link to ``/dev/zero``
    or to a folder is refused before it is read, not after.
    """
    if not path.is_symlink():
        if path.exists() and not path.is_file():
            raise UnsafeWriteError(path, "exists but is not a regular file", "move it away first")
        return path
    try:
        target = path.resolve(strict=True)
        info = target.stat()
    except (OSError, RuntimeError) as exc:  # dangling, or a loop (RuntimeError before 3.13)
        raise UnsafeWriteError(
            path,
            f"is a symbolic link that does not lead to a file ({exc})",
            "remove the link, or point it at a regular file you own",
        ) from exc
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeWriteError(
            path,
            f"is a symbolic link to {target}, which is not a regular file; vaultctx writes through "
            "a link only to a regular file you own",
            "remove the link or point it at one",
        )
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeWriteError(
            path,
            f"is a symbolic link to {target}, which belongs to another user (uid {info.st_uid}); "
            "vaultctx writes through a link only to a file you own",
            "remove the link or point it at one of your files",
        )
    return target


def _back_up(path: Path, source: Path, mode: int) -> Path:
    """Copy ``source`` to the first free ``<path>.bak[.N]``; an existing name, link or not, is
    skipped, never opened."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for number in range(MAX_BACKUPS):
        name = path.name + (".bak" if number == 0 else f".bak.{number}")
        backup = path.with_name(name)
        try:
            fd = os.open(backup, flags, mode)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(source.read_bytes())
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(backup)
            raise
        return backup
    raise UnsafeWriteError(
        path,
        f"already has {MAX_BACKUPS} backups ({path.name}.bak to {path.name}.bak.{MAX_BACKUPS - 1})",
        "delete the ones you no longer need and run again",
    )


def _default_mode() -> int:
    """0o666 minus the umask, the mode ``open()`` would give a new file.

    Linux shows the umask in ``/proc``; elsewhere it can only be read by setting it, which for a
    moment also changes it for the other threads.
    """
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return _NEW_FILE_MODE & ~int(line.split()[1], 8)
    umask = os.umask(0o022)
    os.umask(umask)
    return _NEW_FILE_MODE & ~umask
