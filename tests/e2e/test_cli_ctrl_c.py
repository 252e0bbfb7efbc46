"""Ctrl-C stops ``vaultctx index`` within a second, in either pass, and keeps what is done."""

from __future__ import annotations

import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import apsw
import pytest

NOTES = 3000
WORDS = ["deploy", "rollback", "token", "queue", "index", "search", "vector", "plan", "cache"]
# The promise is one second; a loaded test machine gets six. Measured on two busy cores (load
# 3-7): 0.4-1.7 s in pass 2 (7.1 s before pass 2 embedded in slices), 1.0-1.3 s while the worker
# processes are still starting (they are asked to stop and given up to 2 s: index/parallel.py),
# and once 3.28 s in a CI run with the browser tests alongside. Finishing the work instead of
# stopping takes minutes here (3,000 notes, two passes), so six seconds still tells them apart.
STOP_SECONDS_LIMIT = 6.0


def write_notes(vault: Path, count: int, words_per_section: int) -> Path:
    rng = random.Random(7)
    for number in range(count):
        folder = vault / f"area {number % 30}"
        folder.mkdir(parents=True, exist_ok=True)
        sections = "\n\n".join(
            f"## Part {part}\n\n" + " ".join(rng.choice(WORDS) for _ in range(words_per_section))
            for part in range(3)
        )
        (folder / f"note {number}.md").write_text(f"# Note {number}\n\n{sections}\n")
    return vault


@pytest.fixture(scope="module")
def many_notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 small notes, prepared by two worker processes (even on one core)."""
    vault = write_notes(tmp_path_factory.mktemp("ctrl-c") / "many", NOTES, 60)
    (vault / "vaultctx.toml").write_text("index_workers = 2\n")
    return vault


@pytest.fixture(scope="module")
def long_notes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Notes of three full-size chunks (~2,000 characters): a batch of pass 2 takes seconds."""
    return write_notes(tmp_path_factory.mktemp("ctrl-c") / "long", 150, 250)


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)


def interrupt_when(vault: Path, db: Path, marker: str) -> tuple[float, int, str]:
    """Run ``vaultctx index``, press Ctrl-C at the first stderr line ``marker`` matches; the
    seconds from the signal to the process's exit, its exit status and its stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "index", "--vault", str(vault), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(process.stderr, lines), daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + 180
    while not (seen and re.match(marker, seen[-1])):
        assert time.monotonic() < deadline and process.poll() is None, "".join(seen)
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            continue
    process.send_signal(signal.SIGINT)
    signalled = time.monotonic()
    process.wait(timeout=120)
    stopped = time.monotonic() - signalled
    time.sleep(0.2)  # the reader thread takes the last lines
    while not lines.empty():
        seen.append(lines.get())
    return stopped, process.returncode, "".join(seen)


def _count(db: Path, sql: str) -> int:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return int(conn.execute(sql).fetchone()[0])
    finally:
        conn.close()


def test_ctrl_c_while_worker_processes_start(many_notes: Path, tmp_path: Path) -> None:
    stopped, status, stderr = interrupt_when(many_notes, tmp_path / "index.db", r"indexing: \d+ ")
    print(f"Ctrl-C while worker processes start: stopped {stopped:.2f} s after the signal")
    assert status == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert stopped < STOP_SECONDS_LIMIT, f"{stopped:.2f} s from Ctrl-C to exit"


def test_ctrl_c_in_pass_2(long_notes: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    # Printed when a batch has just been written: the signal comes as the next one starts.
    stopped, status, stderr = interrupt_when(long_notes, db, r"embedding \(pass 2\): \d+/")
    print(f"Ctrl-C in pass 2: stopped {stopped:.2f} s after the signal")
    assert status == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert stopped < STOP_SECONDS_LIMIT, f"{stopped:.2f} s from Ctrl-C to exit"
    # Pass 1 is whole, the vectors embedded before the signal are kept, the rest is left.
    assert _count(db, "SELECT count(*) FROM files") == 150
    embedded = _count(db, "SELECT count(*) FROM chunks WHERE quality_embedded_at IS NOT NULL")
    assert 0 < embedded < _count(db, "SELECT count(*) FROM chunks")
