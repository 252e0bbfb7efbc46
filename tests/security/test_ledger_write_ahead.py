"""The ledger journals before it writes: a batch killed at any point (SIGKILL, SIGTERM, SIGHUP: a
closed terminal, a dropped SSH session) leaves every change it made recorded, listed as
interrupted, and one undo restores the vault byte for byte. Records and contents are fsynced
before their rename; each step is journalled before it is made; undo removes what a change
created before it restores the rest."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli_in_process import run_vaultctx
from tests.conftest import REPO, make_vault
from tests.ledger.conftest import AGENT, NOTES, isolate_data_dir, tree
from vaultctx.api import Vault
from vaultctx.ledger import undo as undo_module
from vaultctx.vault import writes

DRIVER = Path(__file__).with_name("ledger_kill_driver.py")
STEPS = 30
STAGED = re.compile(r"^\.(.+)\.[a-z0-9_]{8}\.vaultctx-tmp$")
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGHUP)


def kill_vault(root: Path) -> Path:
    notes = {
        f"notes/n{i:03d}.md": f"# Note {i}\n\nNext: [[notes/n{i + 1:03d}]]\n" for i in range(STEPS)
    }
    hub = "".join(f"- [[notes/n{i:03d}]]\n" for i in range(STEPS))
    return make_vault(root, {**notes, "Hub.md": f"# Hub\n\n{hub}"})


def environment(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO / "src") + os.pathsep + str(REPO),
        "XDG_DATA_HOME": str(data_dir.parent),
        "VAULT_PATH": "",
        "DB_PATH": "",
    }


def cli(vault: Vault, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ledger``/``undo`` after a kill, in the test process (tests/cli_in_process.py): the
    batch that is killed is the process that matters, and it stays one."""
    where = ["--vault", str(vault.path), "--db", str(vault.db_path)]
    return run_vaultctx([*args, *where], env=environment(data_dir))


def kill_midway(vault: Vault, data_dir: Path, at_step: int, sig: int, rng: random.Random) -> int:
    """Run the batch, kill it with ``sig`` shortly after it announces ``at_step``; return the
    last step it announced."""
    process = subprocess.Popen(
        [sys.executable, str(DRIVER), str(vault.path), str(vault.db_path), str(STEPS)],
        env=environment(data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    announced = -1
    try:
        for line in process.stdout:
            if line.startswith("step "):
                announced = int(line.split()[1])
            if announced >= at_step or line.startswith("done"):
                break
        time.sleep(rng.uniform(0, 0.02))  # anywhere inside the step, or just after it
        process.send_signal(sig)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
        process.stdout.close()
    return announced


def run_kills(
    vault: Vault, data_dir: Path, kills: int, *, seed: int, via_cli: bool
) -> dict[str, object]:
    rng = random.Random(seed)
    original = tree(vault.path)
    by_signal: Counter[str] = Counter()
    steps_done: list[int] = []
    interrupted = unchanged = 0
    for number in range(kills):
        sig = SIGNALS[number % len(SIGNALS)]
        at_step = rng.randint(0, STEPS - 2)
        announced = kill_midway(vault, data_dir, at_step, sig, rng)
        by_signal[signal.Signals(sig).name] += 1
        steps_done.append(announced)
        after_kill = tree(vault.path)
        records = vault.ledger(limit=None)
        if after_kill == original and not records:
            unchanged += 1
            continue  # killed before its first step was journalled: nothing changed
        [record] = records
        # The kill may land after the last steps finished the record (a fast machine): then
        # it is a finished record, undone the same way.
        interrupted += record.interrupted
        # Every path changed on disk is covered by the record (or is the staged copy of a
        # covered file that the kill left behind, which undo removes).
        changed = {
            p for p in set(original) | set(after_kill) if original.get(p, 0) != after_kill.get(p, 0)
        }
        covered = record.paths
        for path in changed:
            staged = STAGED.match(os.path.basename(path))
            if staged:
                path = os.path.join(os.path.dirname(path), staged.group(1))
            assert any(path == c or path.startswith(c + "/") for c in covered), (path, covered)
        if via_cli:
            listed = cli(vault, data_dir, "ledger")
            assert listed.returncode == 0, listed.stderr
            assert ("INTERRUPTED" in listed.stdout) == record.interrupted, listed.stdout
            undone = cli(vault, data_dir, "undo")
            assert undone.returncode == 0, undone.stderr
        else:
            vault.undo()
        assert tree(vault.path) == original, f"kill {number} ({sig!r} at step {announced})"
        assert vault.ledger(limit=None) == []
    assert interrupted >= kills // 2, "most kills must land inside the batch"
    return {
        "kills": kills,
        "by_signal": dict(by_signal),
        "steps_at_kill": sorted(steps_done),
        "interrupted_records": interrupted,
        "finished_before_the_signal": kills - interrupted - unchanged,
        "killed_before_any_change": unchanged,
        "all_restored": True,
    }


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    return Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")


@pytest.fixture
def kill_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Vault, Path]:
    data_dir = isolate_data_dir(tmp_path / "data", monkeypatch)
    vault = Vault(kill_vault(tmp_path / "vault"), db=tmp_path / "index.db")
    return vault, data_dir


@pytest.mark.timeout(600)
def test_a_batch_killed_ten_times_is_recorded_and_undone_exactly(
    kill_setup: tuple[Vault, Path],
) -> None:
    vault, data_dir = kill_setup
    figures = run_kills(vault, data_dir, 10, seed=22, via_cli=True)
    print("kill figures:", json.dumps(figures))


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_batch_killed_sixty_times_is_recorded_and_undone_exactly(
    kill_setup: tuple[Vault, Path],
) -> None:
    vault, data_dir = kill_setup
    figures = run_kills(vault, data_dir, 60, seed=5, via_cli=False)
    print("kill figures:", json.dumps(figures))


LINUX_FDS = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="names open files through /proc/self/fd"
)


@LINUX_FDS
def test_each_step_is_journalled_and_fsynced_before_it_is_made(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order of operations: a journal fsync between any two changes to the vault."""
    events: list[str] = []
    real_fsync, real_link, real_replace, real_rename = os.fsync, os.link, os.replace, os.rename
    vault_root = str(vault.path.resolve())

    def fsync(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        events.append("journal" if name.endswith(".journal") else "fsync")
        real_fsync(fd)

    def changing(real: Callable[..., Any], kind: str) -> Callable[..., Any]:
        def call(src: Any, dst: Any, *args: Any, **kwargs: Any) -> Any:
            if str(dst).startswith(vault_root):
                events.append(kind)
            return real(src, dst, *args, **kwargs)

        return call

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "link", changing(real_link, "vault"))
    monkeypatch.setattr(os, "replace", changing(real_replace, "vault"))
    monkeypatch.setattr(os, "rename", changing(real_rename, "vault"))
    with vault.change_batch(AGENT, "para") as batch:
        batch.move("10-projects/Plan.md", "archive/Plan.md")
        batch.rewrite("Inbox.md", lambda text: text + "more\n")
        batch.create("new/Idea.md", "# Idea\n")
    changes = [i for i, event in enumerate(events) if event == "vault"]
    assert len(changes) >= 5  # the move, two link rewrites, the rewrite, the create
    previous = -1
    for index in changes:
        assert "journal" in events[previous + 1 : index], events
        previous = index


@LINUX_FDS
def test_records_and_blobs_are_fsynced_before_their_rename(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: set[str] = set()
    renamed: list[tuple[str, bool]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.add(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if "/ledger/" in str(dst):
            renamed.append((str(dst), str(src) in synced))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)  # the ledger's own writes: store.py
    monkeypatch.setattr(os, "replace", replace)
    vault.replace_note("Inbox.md", "# Inbox\n\nReplaced.\n", change=AGENT)
    kinds = {Path(dst).parent.name for dst, _ in renamed}
    assert {"blobs", "records"} <= kinds
    assert all(was_synced for _, was_synced in renamed), renamed


def test_undo_removes_what_the_change_created_before_restoring_the_rest(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case-only rename (``Inbox.md`` -> ``inbox.md``) is one name on a case-insensitive file
    system: undo must remove the new name before it recreates the old one. On Linux the two
    are distinct, so the order is observed."""
    vault.move_path("Inbox.md", "inbox.md", change=AGENT)
    order: list[str] = []
    real_remove = getattr(undo_module, "remove_file")  # noqa: B009
    real_create = getattr(undo_module, "create_file")  # noqa: B009

    def remove_file(path: Path, **kwargs: object) -> None:
        order.append(f"remove {path.name}")
        real_remove(path, **kwargs)

    def create_file(path: Path, *args: object) -> None:
        order.append(f"create {path.name}")
        real_create(path, *args)

    monkeypatch.setattr("vaultctx.ledger.undo.remove_file", remove_file)
    monkeypatch.setattr("vaultctx.ledger.undo.create_file", create_file)
    vault.undo()
    assert order == ["remove inbox.md", "create Inbox.md"]
    assert writes.exists(vault.path / "Inbox.md") and not (vault.path / "inbox.md").exists()


def test_a_batch_still_running_is_listed_as_in_progress_not_interrupted(vault: Vault) -> None:
    from typer.testing import CliRunner

    from vaultctx.cli.main import app

    where = ["--vault", str(vault.path), "--db", str(vault.db_path)]
    with vault.change_batch(AGENT, "para") as batch:
        batch.create("new/Idea.md", "# Idea\n")
        listed = CliRunner().invoke(app, ["ledger", *where]).stdout
        assert "IN PROGRESS" in listed and "INTERRUPTED" not in listed
    listed = CliRunner().invoke(app, ["ledger", *where]).stdout
    assert "IN PROGRESS" not in listed and "INTERRUPTED" not in listed


def test_a_step_that_fails_midway_records_what_it_left(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folders made before a file system error are recorded, so undo removes them too."""
    original = tree(vault.path)

    def failing(*args: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("vaultctx.ledger.batch.create_file", failing)
    with pytest.raises(OSError), vault.change_batch(AGENT, "para") as batch:
        batch.rewrite("Inbox.md", lambda text: text + "more\n")
        batch.create("new/deep/Idea.md", "# Idea\n")
    assert (vault.path / "new/deep").is_dir()
    [record] = vault.ledger()
    assert sorted(record.paths) == ["Inbox.md", "new"] and not record.interrupted
    vault.undo()
    assert tree(vault.path) == original
