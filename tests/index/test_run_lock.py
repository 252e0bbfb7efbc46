"""index/run_lock.py: one indexer per index, and the same lock as filelock's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock, Timeout

from vaultctx.index.run_lock import LockHeldError, RunLock


def test_a_second_holder_is_refused_until_the_first_releases(tmp_path: Path) -> None:
    path = tmp_path / "index.db.lock"
    first = RunLock(path)
    first.acquire()
    with pytest.raises(LockHeldError):
        RunLock(path).acquire()
    first.release()
    with RunLock(path):
        pass


def test_it_excludes_filelock_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "index.db.lock"
    with FileLock(str(path)), pytest.raises(LockHeldError):
        RunLock(path).acquire()
    with RunLock(path), pytest.raises(Timeout):
        FileLock(str(path)).acquire(timeout=0.05)


def test_a_lock_held_by_a_process_that_died_is_free(tmp_path: Path) -> None:
    path = tmp_path / "index.db.lock"
    holder = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from vaultctx.index.run_lock import RunLock\n"
        "RunLock(Path(sys.argv[1])).acquire()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", holder, str(path)], check=True, timeout=60)
    with RunLock(path):
        pass
