"""Watch mode: edits searchable within 2 s; bursts and bad files do not stop it; clean stop."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
import watchfiles

from tests.mcp.conftest import subprocess_env
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.watch import VaultChangeFilter, WatchEvent
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import Retriever

SEARCHABLE_WITHIN = 2.0


def hits(vault: Vault, query: str) -> list[str]:
    """Paths BM25 finds now, through a fresh read connection (as another process would)."""
    db = open_index(vault.db_path, readonly=True)
    try:
        response = Retriever(db, None).search(SearchRequest(query, mode="bm25", limit=50))
        return [r.file_path for r in response.results]
    finally:
        db.close()


def wait_for(condition: Callable[[], bool], timeout: float) -> float:
    """Seconds until ``condition`` held; fails the test after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if condition():
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"condition not met within {timeout} s")


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    folder = tmp_path / "vault"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "first.md").write_text("# First\n\nAn existing note about lighthouses.\n")
    handle = Vault(folder, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


class Running:
    """A watcher running in a thread, and every event it reported."""

    def __init__(self, vault: Vault) -> None:
        self.events: list[WatchEvent] = []
        self.watcher = vault.watcher(quality=False, on_event=self.events.append)
        self.thread = threading.Thread(target=self.watcher.run, daemon=True)


@pytest.fixture
def watching(vault: Vault) -> Iterator[Running]:
    running = Running(vault)
    running.thread.start()
    assert running.watcher.ready.wait(30), "the watcher did not start"
    yield running
    running.watcher.stop()
    running.thread.join(10)
    assert not running.thread.is_alive(), "stop() did not end run()"


def test_a_new_note_is_searchable_within_two_seconds(vault: Vault, watching: Running) -> None:
    (vault.path / "notes" / "new.md").write_text("# New\n\nThe marmalade protocol.\n")
    wait_for(lambda: hits(vault, "marmalade") == ["notes/new.md"], SEARCHABLE_WITHIN)


def test_edit_rename_move_and_delete_follow(vault: Vault, watching: Running) -> None:
    note = vault.path / "notes" / "first.md"
    note.write_text("# First\n\nNow about windmills instead.\n")
    wait_for(lambda: hits(vault, "windmills") == ["notes/first.md"], SEARCHABLE_WITHIN)
    assert hits(vault, "lighthouses") == []
    note.rename(vault.path / "notes" / "renamed.md")
    wait_for(lambda: hits(vault, "windmills") == ["notes/renamed.md"], SEARCHABLE_WITHIN)
    (vault.path / "notes").rename(vault.path / "archive")  # a folder move reports the folder only
    wait_for(lambda: hits(vault, "windmills") == ["archive/renamed.md"], SEARCHABLE_WITHIN)
    (vault.path / "archive" / "renamed.md").unlink()
    wait_for(lambda: hits(vault, "windmills") == [], SEARCHABLE_WITHIN)


def test_ignored_and_unindexed_files_do_not_trigger_runs(vault: Vault, watching: Running) -> None:
    (vault.path / ".obsidian").mkdir()
    (vault.path / ".obsidian" / "workspace.json").write_text("{}")
    (vault.path / "notes" / "photo.png").write_bytes(b"\x89PNG")
    runs = len(watching.events)
    time.sleep(0.6)  # several times the time a batch takes to arrive
    assert len(watching.events) == runs


def test_an_unreadable_file_does_not_stop_watching(vault: Vault, watching: Running) -> None:
    (vault.path / "notes" / "binary.md").write_bytes(b"\x00\x01\x02 not text \x00" * 100)
    (vault.path / "notes" / "after.md").write_text("# After\n\nThe quokka census.\n")
    wait_for(lambda: hits(vault, "quokka") == ["notes/after.md"], SEARCHABLE_WITHIN)
    assert watching.thread.is_alive()

    def binary_skipped() -> bool:  # the run's event arrives just after its commit
        skipped = [s for e in watching.events if e.report for s in e.report.skipped]
        return any(s["path"] == "notes/binary.md" for s in skipped)

    wait_for(binary_skipped, 5)


def test_a_burst_of_1000_files(vault: Vault, watching: Running) -> None:
    burst = vault.path / "burst"
    burst.mkdir()
    for number in range(1000):
        (burst / f"note {number:04}.md").write_text(f"# Note {number}\n\nburstword{number:04}\n")
    wait_for(lambda: hits(vault, "burstword0999") == ["burst/note 0999.md"], 30)
    assert hits(vault, "burstword0000") == ["burst/note 0000.md"]

    def added() -> int:  # the run's event arrives just after its commit
        return sum(e.report.added for e in watching.events if e.kind == "indexed" and e.report)

    wait_for(lambda: added() == 1000, 5)
    assert len([e for e in watching.events if e.kind == "indexed"]) < 50  # coalesced
    assert watching.thread.is_alive()


def read_line(stream: IO[str], timeout: float) -> str:
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no output within {timeout} s"
    return stream.readline()


def test_cli_catches_up_then_stops_cleanly_on_ctrl_c(vault: Vault) -> None:
    (vault.path / "notes" / "offline.md").write_text("# Offline\n\nWritten while nobody watched.\n")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vaultctx",
            "watch",
            "--vault",
            str(vault.path),
            "--db",
            str(vault.db_path),
            "--no-quality",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    try:
        assert process.stdout is not None
        assert "indexed 1 added" in read_line(process.stdout, 30)
        assert hits(vault, "nobody watched") == ["notes/offline.md"]
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr
    assert "stopped" in stderr and "Traceback" not in stderr


def test_a_busy_index_is_retried(vault: Vault) -> None:
    from filelock import FileLock

    events: list[WatchEvent] = []
    lock = FileLock(f"{vault.db_path}.lock")
    lock.acquire()
    watcher = vault.watcher(quality=False, on_event=events.append)
    thread = threading.Thread(target=watcher.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: any(e.kind == "busy" for e in events), 10)
        lock.release()
        assert watcher.ready.wait(30)
        assert events[-1].kind == "indexed"
    finally:
        watcher.stop()
        thread.join(10)


@pytest.mark.parametrize(
    ("relative", "change", "expected"),
    [
        ("notes/a.md", watchfiles.Change.modified, True),
        ("notes/a.MD", watchfiles.Change.added, True),
        ("data.csv", watchfiles.Change.added, True),
        ("photo.png", watchfiles.Change.added, False),
        ("photo.png", watchfiles.Change.deleted, True),  # could have been a folder
        (".obsidian/workspace.json", watchfiles.Change.modified, False),
        (".git/index", watchfiles.Change.modified, False),
        ("private/secret.md", watchfiles.Change.added, False),
        ("notes", watchfiles.Change.added, True),
        (".indexignore", watchfiles.Change.modified, True),
        (".vaultctx-cache.md", watchfiles.Change.added, False),
    ],
)
def test_change_filter(
    tmp_path: Path, relative: str, change: watchfiles.Change, expected: bool
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / ".indexignore").write_text("private/\n")
    outside = tmp_path.parent / f"{tmp_path.name}.db"  # an index inside the vault is refused
    change_filter = VaultChangeFilter(Vault(tmp_path, db=outside).config)
    assert change_filter(change, str(tmp_path / relative)) is expected


def test_pass_2_runs_once_the_vault_is_quiet(vault: Vault) -> None:
    events: list[WatchEvent] = []
    watcher = vault.watcher(idle_seconds=0.2, on_event=events.append)
    thread = threading.Thread(target=watcher.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: any(e.kind == "quality" for e in events), 30)
        [quality] = [e for e in events if e.kind == "quality"]
        assert quality.report is not None and quality.report.quality_remaining == 0
        assert quality.report.quality_embedded > 0
        time.sleep(0.5)  # quiet again, and nothing left: pass 2 does not run in a loop
        assert [e.kind for e in events].count("quality") == 1
    finally:
        watcher.stop()
        thread.join(10)


def test_paused_no_run_starts_and_the_change_is_indexed_after(
    vault: Vault, watching: Running
) -> None:
    """``paused()`` (the engine's forwarded ``index`` holds it): no watcher run meanwhile, even
    for a change seen meanwhile; that change is indexed once the block ends."""
    runs = len(watching.events)
    with watching.watcher.paused():
        (vault.path / "notes" / "held.md").write_text("# Held\n\nThe quince arrangement.\n")
        time.sleep(3 * SEARCHABLE_WITHIN)  # well past the moment it would have been indexed
        assert hits(vault, "quince") == []
        assert len(watching.events) == runs
    wait_for(lambda: hits(vault, "quince") == ["notes/held.md"], 30)
