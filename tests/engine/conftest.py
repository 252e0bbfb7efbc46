"""A real engine for an indexed copy of the example vault, in a private runtime folder.

Every engine a test starts (directly or through a client) is stopped by the fixture's finalizer
and killed by pid if it will not stop: none outlives its test. The machine running the suite is
loaded, so every wait polls against a generous deadline.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.cli_server.conftest import cli_env
from tests.conftest import copy_example_vault
from tests.mcp.conftest import subprocess_env
from vaultctx.cli import forward
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

DEADLINE = 90.0
ENGINE_NOTE = "vaultctx: answered by the engine"
# A search's own time, and a moment (``status``'s "last run": the engine's watcher indexes the
# vault when it takes it, and its pass 2 runs 30 s later, either of which may end between the
# engine's `status` and the in-process one).
TIMING = re.compile(r"\d+(\.\d+)?(?= ms)|(?<=\"took_ms\": )[\d.]+|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


class Indexed(NamedTuple):
    """The example vault, indexed once per module."""

    vault: Path
    db: Path

    def args(self, *args: str) -> list[str]:
        return [*args, "--vault", str(self.vault), "--db", str(self.db)]


Run = subprocess.CompletedProcess[str]


def by_engine(run: Run) -> bool:
    return ENGINE_NOTE in run.stderr


def rest(run: Run) -> str:
    """stderr without the client's own notes."""
    lines = run.stderr.splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("vaultctx: "))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = tmp_path_factory.mktemp("engine-vault")
    vault = copy_example_vault(root / "vault")
    db = root / "index.db"
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", "--no-engine", "index", *Indexed(vault, db).args()],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return Indexed(vault, db)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The runtime folder of this test's engines (a short path: a socket's is limited), in
    this process's environment too, so ``client`` here talks to the same engine."""
    made = Path(f"/tmp/vx-engine-{os.getpid()}-{tmp_path.name[-24:]}")
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(made))
    monkeypatch.setenv(client.ENGINE_ENV, "on")
    monkeypatch.setenv(client.IDLE_ENV, "600")
    yield made
    # A start a test's in-process forward() left for after its answer would otherwise run in
    # a later test's call of start_engine_if_wanted, with this test's vault.
    forward._engine_to_start.clear()
    stop_everything(made)
    _remove(made)


def stop_everything(made: Path) -> None:
    pid_file = made / runtime.PID_NAME
    pid = _pid(pid_file)
    if made.is_dir():
        with contextlib.suppress(Exception):  # a folder broken on purpose: killed below
            client.stop(wait=20.0)
    for leftover in {pid, _pid(pid_file)} - {None}:
        assert leftover is not None
        with contextlib.suppress(OSError):
            os.kill(leftover, signal.SIGKILL)


def _pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def _remove(made: Path) -> None:
    if made.exists():
        made.chmod(0o700)
        for child in made.iterdir():
            child.unlink()
        made.rmdir()


def engine_env() -> dict[str, str]:
    """As the forwarding tests run the CLI (notes on), with this test's engine settings."""
    return cli_env()


def vaultctx(args: list[str], *, in_process: bool = False, timeout: float = 240) -> Run:
    """``python -m vaultctx ARGS`` with this test's runtime folder (from the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *(["--no-engine"] if in_process else []), *args],
        capture_output=True,
        text=True,
        env=engine_env(),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def wait_for(condition: Callable[[], bool], what: str, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {deadline:g} s: {what}")


def engine_answers() -> bool:
    try:
        client.request({"op": "status"})
    except Exception:
        return False
    return True


def engine_pid() -> int:
    hello, _answer = client.request({"op": "status"})
    return int(hello["pid"])


def start_engine() -> int:
    """A running engine (``vaultctx engine start``) for this test's folder; its pid."""
    done = vaultctx(["engine", "start"])
    assert done.returncode == 0, done.stderr
    wait_for(engine_answers, "the engine answers")
    return engine_pid()


def process_gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie not yet reaped by its new parent counts)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().split(b") ", 1)[-1].startswith(b"Z")
    except OSError:
        return True


def freeze(pid: int) -> None:
    """SIGSTOP ``pid`` and wait until it is stopped: the signal is delivered when the kernel
    next schedules it, and until then it may still answer, accept or close a connection."""
    os.kill(pid, signal.SIGSTOP)
    wait_for(lambda: process_state(pid) in ("T", "t"), f"process {pid} is stopped")


def process_state(pid: int) -> str:
    """``pid``'s state letter from /proc (R, S, T, Z...), "" when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().split(b") ", 1)[-1][:1].decode()
    except OSError:
        return ""


def server_side_connections(socket_path: Path) -> Counter[int]:
    """The connections the engine holds on its socket, by inode: accepted ones (their own
    inode) and those still in its backlog (inode 0, as many as there are). /proc/net/unix lists
    each under the socket's path, without the listener's flag. Compared as inodes, not as a
    count: a connection of an earlier step that closes meanwhile would hide a new one."""
    with open("/proc/net/unix", encoding="utf-8") as table:
        rows = [row.split() for row in table if row.rstrip("\n").endswith(f" {socket_path}")]
    return Counter(int(row[6]) for row in rows if len(row) == 8 and row[3] == "00000000")


def a_new_connection(socket_path: Path, before: Counter[int]) -> bool:
    """Whether the engine holds a connection it did not hold in ``before``."""
    return bool(server_side_connections(socket_path) - before)


def unread_bytes(socket_path: Path) -> int:
    """Bytes sent to the engine's accepted connections that it has not read (``ss``'s Recv-Q
    of each established socket bound to its path)."""
    listed = subprocess.run(
        ["ss", "-xanH"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    rows = [row.split() for row in listed.splitlines()]
    return sum(
        int(row[2])
        for row in rows
        if len(row) >= 5 and row[1] == "ESTAB" and row[4] == str(socket_path)
    )


def without_timing(output: str) -> str:
    """The output without the time the search took or the time of the last index run: the only
    bytes that differ between two runs, wherever they run."""
    return TIMING.sub("N", output)
