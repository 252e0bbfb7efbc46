"""The in-process CLI runner answers as a ``python -m vaultctx`` child does, and leaves the test
process as it found it (the tests that use it rely on both)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
from tests.conftest import make_vault


def child(words: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "vaultctx", *words]
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL
    )


def test_same_output_exit_code_and_ledger_as_a_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path / "vault", {"a.md": "# A\n"})
    where = ["--vault", str(vault), "--db", str(tmp_path / "index.db")]
    env = clean_cli_env(tmp_path, COLUMNS="100")
    # A fixture pointing this process's folders elsewhere does not reach the command.
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(tmp_path / "elsewhere"))
    before = dict(os.environ)
    for words in (
        ["capture", "one line", *where],  # writes through the ledger
        ["ledger", "--json", *where],
        ["undo", "nope", *where],  # an error: one line, exit 2
        ["no-such-command"],  # a usage error from click
    ):
        here, there = run_vaultctx(words, env=env), child(words, env)
        assert (here.returncode, here.stderr) == (there.returncode, there.stderr), words
        if words[0] not in ("ledger", "capture"):  # ids, times and a second note's name differ
            assert here.stdout == there.stdout, words
    assert sorted(path.name for path in (vault / "00-inbox").iterdir()) == [
        "one line 2.md",
        "one line.md",
    ]
    assert len(json.loads(run_vaultctx(["ledger", "--json", *where], env=env).stdout)) == 2
    assert not (tmp_path / "elsewhere").exists()
    assert (tmp_path / "data" / "vaultctx").is_dir()
    assert dict(os.environ) == before and os.getcwd() != str(vault)
    assert platformdirs.user_data_dir("x") == str(tmp_path / "elsewhere")


def test_ctrl_c_inside_a_command_still_stops_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(forwarding: bool = True) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("vaultctx.cli.main.app_for", lambda argv: interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_vaultctx(["ledger"])
