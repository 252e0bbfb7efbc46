"""A damaged index is kept aside, never deleted, before the indexer rebuilds it.

The index is derived data, but a damaged file is also the only evidence of what damaged it (a
disk, a sync tool, another program writing there), and a file at the index path that is not
provably ours must survive untouched. So the rebuild renames our file (and its ``-wal`` and
``-journal``, which hold part of its content) to ``<db>.corrupt-<UTC time>``, private to the user,
and says where it went. The ``-shm`` file is only SQLite's shared-memory index of the WAL, rebuilt
from the WAL whenever it is opened: it is deleted, as SQLite itself does.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from vaultctx.index.db import IndexNeedsRebuildError, check_index_file
from vaultctx.index.ownership import IndexFileKind

# Beside the main file, under the name SQLite looks for next to the moved file.
_CONTENT_SIDE_FILES = ("-wal", "-journal")


def set_aside_damaged(path: Path) -> Path:
    """Move our damaged index at ``path`` aside and return where it went.

    ``NotAnIndexError`` (from ``check_index_file``) when the file is not provably ours: then
    nothing is moved. The caller holds the index's run lock, so no indexer writes meanwhile.
    """
    if check_index_file(path) is not IndexFileKind.OURS:
        raise IndexNeedsRebuildError(
            f"there is no index to set aside at {path}", "run `vaultctx index` to create one"
        )
    aside = _move_without_overwriting(path)
    for suffix in _CONTENT_SIDE_FILES:
        side = Path(f"{path}{suffix}")
        if side.is_file() and not side.is_symlink():
            os.rename(side, f"{aside}{suffix}")
            _make_private(Path(f"{aside}{suffix}"))
    with contextlib.suppress(FileNotFoundError):
        Path(f"{path}-shm").unlink()
    return aside


def _move_without_overwriting(path: Path) -> Path:
    """``path`` renamed to a free ``.corrupt-<time>`` name: a hard link never replaces an
    existing file (``os.rename`` would), then the old name is removed."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for attempt in range(100):
        aside = path.with_name(f"{path.name}.corrupt-{stamp}" + (f"-{attempt}" if attempt else ""))
        try:
            os.link(path, aside, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links: check, then rename
            if os.path.lexists(aside):
                continue
            os.rename(path, aside)
        else:
            path.unlink()
        _make_private(aside)
        return aside
    raise IndexNeedsRebuildError(
        f"cannot find a free name beside {path} to keep the damaged index",
        f"move or delete the old {path.name}.corrupt-* files, then run the command again",
    )


def _make_private(path: Path) -> None:
    """0600 like the index itself (it holds note text); a link is left alone (Linux cannot
    change a link's mode, and its target is the user's own choice)."""
    if not path.is_symlink():
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)
