"""``hook capture``: Claude Code runs it after every tool; in a project turned on, an output over
500 characters becomes one scrubbed draft note in the inbox, one ledger record."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.agent.tool_support import snapshot
from tests.cli_in_process import run_vaultctx
from tests.conftest import copy_example_vault
from tests.hooks import events
from tests.hooks.conftest import run_hook_process, subprocess_env
from vaultctx.api import Vault
from vaultctx.hooks.install import is_vaultctx_command

AWS_KEY = "AKIAZ3MSXQ4PBRW6TN7L"
LONG_LOG = "\n".join(f"line {n}: migration step {n} applied in {n * 7} ms" for n in range(40))


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    vault = copy_example_vault(tmp_path / "vault")
    db = tmp_path / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    project = tmp_path / "billing"
    (project / "src").mkdir(parents=True)
    env = subprocess_env(XDG_STATE_HOME=str(tmp_path / "state"), XDG_DATA_HOME=str(tmp_path / "d"))
    env.pop("CLAUDE_PROJECT_DIR", None)
    return vault, db, project, env


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """In the test process (tests/cli_in_process.py); the hook itself runs as Claude Code runs it,
    in a process of its own (``run_hook_process``)."""
    return run_vaultctx(args, env=env)


def _event(project: Path, stdout: str, command: str = "cat migrate.log") -> str:
    event = events.post_tool_use_bash(command, stdout)
    event["cwd"] = str(project / "src")
    return events.as_stdin(event)


def _inbox(vault: Path) -> list[Path]:
    return sorted((vault / "00-inbox").glob("*.md")) if (vault / "00-inbox").is_dir() else []


def _ledger(env: dict[str, str], vault: Path) -> list[dict[str, object]]:
    listed = _cli(env, "ledger", "--json", "--vault", str(vault))
    assert listed.returncode == 0, listed.stderr
    records = json.loads(listed.stdout)
    return records if isinstance(records, list) else records["records"]


def test_a_long_output_is_captured_scrubbed_once_only_where_turned_on(
    setup: tuple[Path, Path, Path, dict[str, str]],
) -> None:
    vault, db, project, env = setup
    args = ["capture", "--vault", str(vault), "--db", str(db)]
    output = f"{LONG_LOG}\naws_access_key_id = {AWS_KEY}\n"
    before, tree = _inbox(vault), snapshot(vault)

    off = run_hook_process(args, _event(project, output), env)
    assert off.returncode == 0 and off.stdout == "" and _inbox(vault) == before

    switched = _cli(env, "hooks", "capture", "on", "--project", str(project))
    assert switched.returncode == 0 and ": on" in switched.stdout
    short = run_hook_process(args, _event(project, "x" * 500), env)
    own = run_hook_process(args, _event(project, output, "vaultctx capture -"), env)
    assert _inbox(vault) == before  # 500 characters is not over 500; our own output is ours
    captured = run_hook_process(args, _event(project, output), env)

    assert captured.returncode == 0, captured.stderr
    assert captured.stdout == "" and short.stdout == own.stdout == ""
    new = [path for path in _inbox(vault) if path not in before]
    assert len(new) == 1
    text = new[0].read_text(encoding="utf-8")
    assert "line 39: migration step 39" in text
    assert AWS_KEY not in text and "claude-code-Bash" in text and "status: draft" in text
    records = _ledger(env, vault)
    assert len(records) == 1 and "capture" in json.dumps(records[0])
    undone = _cli(env, "undo", "--vault", str(vault))
    assert undone.returncode == 0, undone.stderr
    assert snapshot(vault) == tree  # the capture undone: the vault == before, byte for byte

    _cli(env, "hooks", "capture", "off", "--project", str(project))
    run_hook_process(args, _event(project, output), env)
    assert _inbox(vault) == before


def test_a_project_cannot_turn_itself_on(setup: tuple[Path, Path, Path, dict[str, str]]) -> None:
    """The switch lives in the user's state folder; a file in the project decides nothing."""
    vault, db, project, env = setup
    (project / ".claude").mkdir()
    (project / ".claude" / "capture_projects.json").write_text(
        json.dumps({"projects": [str(project)]}), encoding="utf-8"
    )
    env["CLAUDE_PROJECT_DIR"] = str(project)
    before = _inbox(vault)
    run = run_hook_process(
        ["capture", "--vault", str(vault), "--db", str(db)], _event(project, LONG_LOG), env
    )
    assert run.returncode == 0 and _inbox(vault) == before


def test_hooks_install_adds_the_capture_hook_beside_the_others(
    setup: tuple[Path, Path, Path, dict[str, str]],
) -> None:
    vault, _db, project, env = setup
    done = _cli(env, "hooks", "install", "--project", str(project), "--vault", str(vault))
    assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    post = [
        (group.get("matcher"), hook["command"])
        for group in settings["hooks"]["PostToolUse"]
        for hook in group["hooks"]
    ]
    kinds = [command.split()[3] for _matcher, command in post if is_vaultctx_command(command)]
    assert kinds == ["compress", "capture"]
    assert [matcher for matcher, _command in post] == ["Bash", None]


def test_the_switch_names_a_long_or_bracketed_folder_on_one_line_as_written(
    tmp_path: Path,
) -> None:
    """Rich wraps at 80 columns when stdout is not a terminal and reads "[...]" as markup: the
    folder must come back whole, on one line, brackets kept."""
    project = tmp_path / ("a-project-folder-with-a-long-name-" * 3 + "[red]x")
    project.mkdir()
    env = subprocess_env(XDG_STATE_HOME=str(tmp_path / "state"), XDG_DATA_HOME=str(tmp_path / "d"))
    for state in ("on", "status", "off"):
        switched = _cli(env, "hooks", "capture", state, "--project", str(project))
        assert switched.returncode == 0, switched.stderr
        expected = "on" if state != "off" else "off"
        assert switched.stdout == f"capture of tool output in {project.resolve()}: {expected}\n"
