"""An index vaultctx cannot write: a path nothing can be created at, a read-only mount."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "vaultctx"]
# Bind-mounts the folder in $1 read-only onto itself, in a mount namespace of this command only.
READ_ONLY_MOUNT = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && "$@"'


def vaultctx(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, *CLI, *args], capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_an_index_path_nothing_can_be_created_at(tmp_path: Path) -> None:
    """/proc exists, but no file can be made in it: that is no other indexer at work."""
    (tmp_path / "vault").mkdir()
    db = "/proc/vaultctx-test.db"
    done = vaultctx("index", "--vault", str(tmp_path / "vault"), "--db", db)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert f"cannot write the index at {db}" in line
    assert "No such file or directory" in line and "--db" in line
    assert "already" not in line


@contextmanager
def read_only(folder: Path) -> Iterator[tuple[str, ...]]:
    """A command prefix under which ``folder`` cannot be written.

    Permission bits do not stop root, so root gets a read-only bind mount in a private mount
    namespace (``unshare -m``); anyone else gets the folder and its files made read-only.
    """
    if os.geteuid() == 0:
        prefix = ("unshare", "-m", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder))
        if not shutil.which("unshare") or subprocess.run([*prefix, "true"]).returncode != 0:
            pytest.skip("root, and no private read-only mount possible here")
        yield prefix
        return
    modes = {path: path.stat().st_mode for path in [folder, *folder.iterdir()]}
    for path, mode in modes.items():
        path.chmod(stat.S_IMODE(mode) & ~0o222)
    try:
        yield ()
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


@pytest.fixture
def read_only_index(tmp_path: Path) -> Iterator[tuple[list[str], Path, tuple[str, ...]]]:
    """An index closed cleanly (no -wal or -shm file beside it) in a folder then read-only."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "smoothies.md").write_text("# Smoothies\n\nA banana smoothie needs ice.\n")
    db = tmp_path / "index" / "vault.db"
    built = vaultctx("index", "--vault", str(vault), "--db", str(db), "--fast", "--quiet")
    assert built.returncode == 0, built.stderr
    assert not Path(f"{db}-shm").exists()
    with read_only(db.parent) as prefix:
        yield ["--vault", str(vault), "--db", str(db)], db, prefix


def test_a_read_only_index_is_searched_and_said_to_be_read_only(
    read_only_index: tuple[list[str], Path, tuple[str, ...]],
) -> None:
    args, db, prefix = read_only_index
    found = vaultctx("search", "banana", *args, "--json", prefix=prefix)
    assert found.returncode == 0, found.stderr
    assert [hit["file_path"] for hit in json.loads(found.stdout)["results"]] == ["smoothies.md"]

    status = vaultctx("status", *args, "--json", prefix=prefix)
    assert status.returncode == 0, status.stderr
    info = json.loads(status.stdout)
    assert info["exists"] and info["files"] == 1 and info["writable"] is False
    shown = vaultctx("status", *args, prefix=prefix)
    assert shown.returncode == 0, shown.stderr
    assert "read-only" in shown.stdout and "no index" not in shown.stdout + shown.stderr

    doctor = vaultctx("doctor", *args, prefix=prefix)
    assert doctor.returncode == 0, doctor.stdout
    assert "read-only" in doctor.stdout and "--full" not in doctor.stdout

    index = vaultctx("index", *args, prefix=prefix)
    assert index.returncode == 2
    [line] = index.stderr.splitlines()
    assert f"cannot write the index at {db}" in line and "--db" in line
