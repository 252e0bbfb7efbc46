"""``vaultctx hooks install``: merged into settings.json, backed up, idempotent, never clobbers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.hooks import events
from tests.hooks.conftest import IndexedVault, subprocess_env
from vaultctx.cli.main import app
from vaultctx.hooks.install import (
    HookInstallError,
    hook_command,
    install_hooks,
    is_vaultctx_command,
    uninstall_hooks,
)

COMMANDS = {
    "context": "/py -m vaultctx.hooks context --vault /v",
    "compress": "/py -m vaultctx.hooks compress --vault /v",
}

USER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm run lint)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/.claude/hooks/check-bash.sh"}],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def read(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def our_hooks(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        hook
        for group in settings["hooks"].get(event, [])
        for hook in group["hooks"]
        if is_vaultctx_command(hook["command"])
    ]


def test_new_settings_file(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    report = install_hooks(path, COMMANDS)
    assert report.changed and report.backup is None
    hooks = read(path)["hooks"]
    assert hooks["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": COMMANDS["context"], "timeout": 10}]}
    ]
    assert hooks["PreToolUse"][0]["matcher"] == "Edit|MultiEdit|Write|Bash"
    assert hooks["PostToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": COMMANDS["compress"], "timeout": 10}],
        }
    ]


def test_merge_keeps_everything_else_and_backs_up(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = json.dumps(USER_SETTINGS, indent=4)
    path.write_text(original, encoding="utf-8")
    report = install_hooks(path, COMMANDS)
    assert report.changed and report.backup == tmp_path / "settings.json.bak"
    assert report.backup.read_text(encoding="utf-8") == original
    merged = read(path)
    assert merged["permissions"] == USER_SETTINGS["permissions"]
    assert merged["hooks"]["Stop"] == USER_SETTINGS["hooks"]["Stop"]
    assert merged["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    assert len(our_hooks(merged, "PreToolUse")) == 1


def test_second_install_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(USER_SETTINGS), encoding="utf-8")
    install_hooks(path, COMMANDS)
    first = path.read_text(encoding="utf-8")
    backup = (tmp_path / "settings.json.bak").read_text(encoding="utf-8")
    report = install_hooks(path, COMMANDS)
    assert not report.changed
    assert path.read_text(encoding="utf-8") == first
    assert (tmp_path / "settings.json.bak").read_text(encoding="utf-8") == backup


def test_a_changed_vault_updates_the_entries_in_place(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install_hooks(path, COMMANDS)
    settings = read(path)
    settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 30  # the user's tweak
    path.write_text(json.dumps(settings), encoding="utf-8")
    moved = {kind: command.replace("/v", "/w") for kind, command in COMMANDS.items()}
    install_hooks(path, moved)
    updated = read(path)
    for event in ("UserPromptSubmit", "PreToolUse", "PostToolUse"):
        [hook] = our_hooks(updated, event)
        assert hook["command"].endswith("--vault /w")


def test_a_documented_cli_form_counts_as_installed(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    hand_written = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "vaultctx hook context --vault ~/notes"}]}
            ]
        }
    }
    path.write_text(json.dumps(hand_written), encoding="utf-8")
    install_hooks(path, COMMANDS)
    [hook] = our_hooks(read(path), "UserPromptSubmit")
    assert hook["command"] == COMMANDS["context"]


def test_uninstall_removes_exactly_our_hooks(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(USER_SETTINGS, indent=4), encoding="utf-8")
    install_hooks(path, COMMANDS)
    settings = read(path)
    # The user has since put a hook of their own into our group, and one that mentions us.
    theirs = {"type": "command", "command": "echo vaultctx.hooks context"}
    settings["hooks"]["UserPromptSubmit"][0]["hooks"].append(theirs)
    settings["hooks"]["SessionStart"] = []  # theirs, empty before: stays
    path.write_text(json.dumps(settings), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    report = uninstall_hooks(path)
    assert report.changed
    assert sorted(report.events) == ["PostToolUse", "PreToolUse", "UserPromptSubmit"]
    assert report.backup is not None and report.backup.read_text(encoding="utf-8") == before
    left = read(path)
    assert left["permissions"] == USER_SETTINGS["permissions"]
    assert left["hooks"] == {
        **USER_SETTINGS["hooks"],
        "UserPromptSubmit": [{"hooks": [theirs]}],
        "SessionStart": [],
    }
    again = uninstall_hooks(path)
    assert not again.changed and again.events == []


def test_uninstall_leaves_no_empty_hooks_behind(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}', encoding="utf-8")
    install_hooks(path, COMMANDS)
    uninstall_hooks(path)
    assert read(path) == {"model": "opus"}
    assert not uninstall_hooks(tmp_path / "missing.json").changed
    assert not (tmp_path / "missing.json").exists()


def test_cli_uninstall(tmp_path: Path, indexed_vault: IndexedVault) -> None:
    vault_args = ["--vault", str(indexed_vault.vault)]
    runner = CliRunner()
    installed = runner.invoke(app, ["hooks", "install", "--project", str(tmp_path), *vault_args])
    assert installed.exit_code == 0, installed.output
    removed = runner.invoke(app, ["hooks", "uninstall", "--project", str(tmp_path)])
    assert removed.exit_code == 0, removed.output
    assert "removed the vaultctx hooks" in removed.stdout
    assert read(tmp_path / ".claude" / "settings.json") == {}
    again = runner.invoke(app, ["hooks", "uninstall", "--project", str(tmp_path)])
    assert again.exit_code == 0 and "nothing changed" in " ".join(again.stdout.split())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hooks": {,}', "is not valid JSON (line 1, column 12"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"hooks": []}', '"hooks" is not an object'),
        ('{"hooks": {"PreToolUse": {}}}', '"hooks.PreToolUse" is not a list'),
    ],
)
def test_unusable_files_are_refused_and_untouched(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HookInstallError, match=message.replace("(", r"\(").replace("[", r"\[")):
        install_hooks(path, COMMANDS)
    if "hooks.PreToolUse" not in message:  # uninstall passes over what it does not recognise
        with pytest.raises(HookInstallError):
            uninstall_hooks(path)
    assert path.read_text(encoding="utf-8") == content
    assert not (tmp_path / "settings.json.bak").exists()


@pytest.mark.parametrize(
    ("command", "kind", "expected"),
    [
        ("'/my python/bin/python' -m vaultctx.hooks context --vault /v", "context", True),
        ("/py -m vaultctx.hooks compress --vault /v", "context", False),
        ("/usr/local/bin/vaultctx hook compress", "compress", True),
        ("echo vaultctx.hooks", None, False),
        ("my-vaultctx-wrapper.sh", None, False),
        (None, None, False),
    ],
)
def test_recognising_our_commands(command: object, kind: str | None, expected: bool) -> None:
    assert is_vaultctx_command(command, kind) is expected


def test_cli_installs_a_command_that_works(tmp_path: Path, indexed_vault: IndexedVault) -> None:
    project = tmp_path / "project"
    project.mkdir()
    result = CliRunner().invoke(
        app,
        [
            "hooks",
            "install",
            "--project",
            str(project),
            "--vault",
            str(indexed_vault.vault),
            "--db",
            str(indexed_vault.db),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "installed the vaultctx hooks" in result.output
    settings = read(project / ".claude" / "settings.json")
    [hook] = our_hooks(settings, "UserPromptSubmit")
    # Run the installed command line through a shell, as Claude Code does.
    event = events.user_prompt_submit("How do we roll back the billing service deploy?")
    shell = subprocess.run(
        hook["command"],
        shell=True,
        input=events.as_stdin(event),
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=60,
    )
    assert shell.returncode == 0, shell.stderr
    assert (
        "On-call handbook.md#Rules"
        in json.loads(shell.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def test_cli_refuses_a_broken_settings_file(tmp_path: Path, indexed_vault: IndexedVault) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{oops", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["hooks", "install", "--project", str(tmp_path), "--vault", str(indexed_vault.vault)]
    )
    assert isinstance(result.exception, HookInstallError)
    assert "is not valid JSON" in str(result.exception) and "nothing was changed" in str(
        result.exception
    )
    assert "fix the file" in result.exception.suggestion


def test_hook_command_quotes_paths_with_spaces(tmp_path: Path) -> None:
    command = hook_command("context", tmp_path / "my vault", None)
    assert "'" + str(tmp_path / "my vault") + "'" in command
    assert is_vaultctx_command(command, "context")
