"""The CLI as a user runs it: real processes, real files, real signals."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from tests.conftest import shared_data

CLI = [sys.executable, "-m", "vaultctx"]


def vaultctx(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_index_status_doctor_on_example_vault(example_vault: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "ex.db")
    done = vaultctx("index", "--vault", str(example_vault), "--db", db, "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["files"]["added"] >= 20
    assert summary["chunks"]["written"] > summary["files"]["added"]
    assert sum(summary["secrets_redacted"].values()) >= 2
    assert any("templates" in s["path"] for s in summary["skipped"]) is False

    status = json.loads(
        vaultctx("status", "--vault", str(example_vault), "--db", db, "--json").stdout
    )
    assert status["files"] == summary["files"]["added"]
    assert status["vectors"] == status["chunks"] == summary["chunks"]["written"]
    assert status["vec_version"] and status["fts_tokenizer"].startswith("porter unicode61")

    human = vaultctx("status", "--vault", str(example_vault), "--db", db)
    assert human.returncode == 0 and "chunks" in human.stdout
    doctor = vaultctx("doctor", "--vault", str(example_vault), "--db", db)
    assert doctor.returncode == 0, doctor.stdout
    again = json.loads(
        vaultctx("index", "--vault", str(example_vault), "--db", db, "--json").stdout
    )
    assert again["files"]["unchanged"] == summary["files"]["added"]
    assert again["chunks"]["written"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["index", "--vault", "/no/such/vault"], "vault folder not found"),
        (["status", "--vault", "/no/such/vault"], "vault folder not found"),
        (["index"], "VAULT_PATH"),
    ],
)
def test_bad_arguments_give_one_line_errors(args: list[str], message: str) -> None:
    done = vaultctx(*args, env={"VAULT_PATH": ""})
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_status_without_index_names_the_command(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    done = vaultctx("status", "--vault", str(tmp_path / "vault"), "--db", str(tmp_path / "none.db"))
    assert done.returncode == 2
    assert "vaultctx index" in done.stderr and "Traceback" not in done.stderr


def test_unwritable_database_location(example_vault: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for db in (str(blocker / "index.db"), "/proc/vaultctx-test/index.db"):
        done = vaultctx("index", "--vault", str(example_vault), "--db", db)
        assert done.returncode == 2, done.stderr
        assert "--db" in done.stderr and "Traceback" not in done.stderr


def _big_vault(tmp_path: Path, copies: int = 3) -> Path:
    """The real Obsidian Help vault, copied a few times to make runs last long enough to kill."""
    source = shared_data("obsidian-help", "en")
    vault = tmp_path / "big"
    for i in range(copies):
        shutil.copytree(source, vault / f"copy{i}")
    return vault


def _chunk_rows(db: Path) -> set[tuple[object, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return set(
            conn.execute(
                "SELECT f.path, c.ordinal, c.body FROM chunks c JOIN files f ON f.id = c.file_id"
            )
        )
    finally:
        conn.close()


def _integrity(db: Path) -> str:
    conn = apsw.Connection(str(db))
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def test_sigint_finishes_file_commits_and_exits_130(tmp_path: Path) -> None:
    vault = _big_vault(tmp_path)
    db = tmp_path / "sig.db"
    process = subprocess.Popen(
        [*CLI, "index", "--vault", str(vault), "--db", str(db), "--fast"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 60
    while time.time() < deadline and not (db.exists() and _has_files(db)):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.skip("the index finished before the signal arrived")
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert _integrity(db) == "ok"
    done = vaultctx("index", "--vault", str(vault), "--db", str(db), "--json", "--fast")
    assert json.loads(done.stdout)["files"]["added"] > 0


def _has_files(db: Path) -> bool:
    try:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            return bool(conn.execute("SELECT count(*) FROM files").fetchone()[0])
        finally:
            conn.close()
    except apsw.Error:
        return False


def _children(pid: int) -> list[int]:
    """The worker processes of an indexer (Linux /proc; empty elsewhere)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _assert_exit_soon(pids: list[int]) -> None:
    """Workers of a killed indexer must not linger holding a model in memory."""
    deadline = time.time() + 15
    alive = list(pids)
    while alive and time.time() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in alive if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
    assert not alive, f"worker processes {alive} outlived their killed indexer"


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


# Three kills in the default run, ten in the slow step (`pytest -m slow`, which CI runs).
@pytest.mark.parametrize("kills", [3, pytest.param(10, marks=pytest.mark.slow)])
def test_kill_9_repeatedly_leaves_a_consistent_index(tmp_path: Path, kills: int) -> None:
    # 519 files: enough for the indexer to prepare them in worker processes (index/parallel.py).
    vault = _big_vault(tmp_path, copies=3)
    clean, crashed = tmp_path / "clean.db", tmp_path / "crash.db"
    assert (
        vaultctx("index", "--vault", str(vault), "--db", str(clean), "--quiet", "--fast").returncode
        == 0
    )
    rng = random.Random(5)
    for _ in range(kills):
        process = subprocess.Popen(
            [
                *CLI,
                "index",
                "--vault",
                str(vault),
                "--db",
                str(crashed),
                "--full",
                "--quiet",
                "--fast",
            ]
        )
        time.sleep(rng.uniform(0.5, 4.0))
        workers = _children(process.pid)
        process.kill()
        process.wait()
        if crashed.exists():
            assert _integrity(crashed) == "ok"
        _assert_exit_soon(workers)
    done = vaultctx("index", "--vault", str(vault), "--db", str(crashed), "--quiet", "--fast")
    assert done.returncode == 0, done.stderr
    assert _integrity(crashed) == "ok"
    assert _chunk_rows(crashed) == _chunk_rows(clean)
