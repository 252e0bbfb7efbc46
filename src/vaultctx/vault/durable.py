"""Writing a file so that a crash leaves the old contents or the new, never a torn mix.

New contents go to a fresh ``mkstemp`` name beside the target (never a fixed name, which a link
planted there could redirect), are fsynced, and only then take the target's name with a rename;
fsyncing the folder afterwards makes the rename itself survive a power cut. The vault's changes
(``vault.writes``), the ledger's records and every settings file vaultctx saves
(``atomic_write``) are written this way, so the steps live here once.

Only the standard library: everything that saves a file imports this, the hooks included.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def stage_file(folder: Path, data: bytes, mode: int, *, prefix: str, suffix: str) -> str:
    """A fresh temporary file in ``folder`` holding ``data`` (fsynced, ``mode``): its path.

    Nothing is left behind when this fails."""
    fd, staging = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(staging, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise
    return staging


def replace_with_staged(path: Path, data: bytes, mode: int, *, prefix: str, suffix: str) -> None:
    """Replace ``path`` by a staged copy of ``data`` (``stage_file``) with one rename.

    The folder is not synced: callers that need the rename to be durable call ``sync_folder``
    (some write several files first and sync once)."""
    staging = stage_file(path.parent, data, mode, prefix=prefix, suffix=suffix)
    try:
        os.replace(staging, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staging)
        raise


def sync_folder(folder: Path) -> None:
    """Make a rename durable; best effort (Windows cannot open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
