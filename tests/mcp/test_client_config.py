"""``vaultctx config claude|codex|cursor``: the snippets and the merge into existing files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from vaultctx.api import Vault
from vaultctx.cli.main import app
from vaultctx.mcp import client_config
from vaultctx.mcp.client_config import ClientConfigError, merged, snippet, write_client_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

COMMAND = ["/opt/venv/bin/vaultctx", "serve", "--vault", "/home/me/notes"]

CODEX_CONFIG = """\
# my codex settings
model = "o3"  # the good one

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server"]

[mcp_servers.vaultctx]
command = "/old/vaultctx"
args = ["serve"]

[mcp_servers.vaultctx.env]
VAULT_PATH = "/old"

[profiles.fast]
model = "o4-mini"
"""


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    folder = tmp_path / "My Notes"
    folder.mkdir()
    return Vault(folder, db=tmp_path / "custom.db")


def test_launch_command_is_absolute(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    command = client_config.launch_command(vault)
    assert Path(command[0]).is_absolute() and Path(command[0]).exists()
    assert command[command.index("--vault") + 1] == str(vault.path)
    assert command[command.index("--db") + 1] == str(vault.db_path)
    monkeypatch.chdir(vault.path.parent)
    monkeypatch.delenv("DB_PATH", raising=False)
    default_db = client_config.launch_command(Vault("My Notes"))
    assert "--db" not in default_db
    assert default_db[default_db.index("--vault") + 1] == str(vault.path)


@pytest.mark.parametrize("client", client_config.CLIENTS)
def test_snippets_parse(client: client_config.ClientName) -> None:
    text = snippet(client, COMMAND)
    if client == "codex":
        entry = tomllib.loads(text)["mcp_servers"]["vaultctx"]
        assert entry["startup_timeout_sec"] >= 30
    else:
        entry = json.loads(text)["mcpServers"]["vaultctx"]
    assert [entry["command"], *entry["args"]] == COMMAND


def test_json_merge_keeps_everything_else() -> None:
    existing: dict[str, Any] = {
        "mcpServers": {
            "github": {"command": "gh-mcp", "args": []},
            "vaultctx": {"command": "/old/vaultctx", "args": ["serve"]},
        },
        "otherSetting": True,
    }
    result = json.loads(merged("claude", json.dumps(existing), COMMAND))
    assert result["otherSetting"] is True
    assert result["mcpServers"]["github"] == existing["mcpServers"]["github"]
    assert result["mcpServers"]["vaultctx"]["args"] == COMMAND[1:]
    assert result["mcpServers"]["vaultctx"]["type"] == "stdio"
    assert (
        json.loads(merged("cursor", None, COMMAND))["mcpServers"]["vaultctx"]["command"]
        == (COMMAND[0])
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"mcpServers": {', "not valid JSON"),
        ("// comment\n{}", "not valid JSON"),
        ("[1, 2]", "not an object"),
        ('{"mcpServers": []}', '"mcpServers"'),
    ],
)
def test_json_that_cannot_be_merged_is_refused(text: str, message: str) -> None:
    with pytest.raises(ClientConfigError, match=message):
        merged("claude", text, COMMAND)


def test_toml_merge_replaces_only_our_table() -> None:
    result_text = merged("codex", CODEX_CONFIG, COMMAND)
    result = tomllib.loads(result_text)
    original = tomllib.loads(CODEX_CONFIG)
    assert result["model"] == "o3" and result["profiles"] == original["profiles"]
    assert result["mcp_servers"]["docs"] == original["mcp_servers"]["docs"]
    ours = result["mcp_servers"]["vaultctx"]
    assert [ours["command"], *ours["args"]] == COMMAND and "env" not in ours
    assert "# my codex settings" in result_text and "# the good one" in result_text
    assert merged("codex", result_text, COMMAND) == result_text


def test_toml_merge_into_empty_or_missing_file() -> None:
    for existing in (None, "", "\n"):
        parsed = tomllib.loads(merged("codex", existing, COMMAND))
        assert list(parsed["mcp_servers"]) == ["vaultctx"]


def test_toml_strings_are_escaped() -> None:
    windows = ['C:\\Program Files\\vaultctx\\"vaultctx".exe', "serve", "--vault", "D:\\notes\ttab"]
    entry = tomllib.loads(merged("codex", "", windows))["mcp_servers"]["vaultctx"]
    assert [entry["command"], *entry["args"]] == windows


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model = \n", "not valid TOML"),
        ('[mcp_servers]\nvaultctx = { command = "x" }\n', "by hand"),
        ('mcp_servers.vaultctx.command = "x"\n', "by hand"),
        ('mcp_servers = "nope"\n', "not a table"),
    ],
)
def test_toml_that_cannot_be_merged_is_refused(text: str, message: str) -> None:
    with pytest.raises(ClientConfigError) as raised:
        merged("codex", text, COMMAND)
    assert message in raised.value.one_line()


def test_write_keeps_a_backup_and_refuses_broken_files(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    first = write_client_config("cursor", path, COMMAND)
    assert first.changed and first.backup is None and path.is_file()
    original = path.read_text(encoding="utf-8")
    again = write_client_config("cursor", path, COMMAND)
    assert not again.changed and again.backup is None
    moved = write_client_config("cursor", path, [*COMMAND[:-1], "/elsewhere"])
    assert moved.backup == path.with_name("mcp.json.bak")
    assert moved.backup.read_text(encoding="utf-8") == original
    broken = tmp_path / "broken.json"
    broken.write_text("{oops", encoding="utf-8")
    with pytest.raises(ClientConfigError):
        write_client_config("claude", broken, COMMAND)
    assert broken.read_text(encoding="utf-8") == "{oops"
    assert not broken.with_name("broken.json.bak").exists()


runner = CliRunner()


def test_cli_prints_and_writes(
    vault: Vault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    vault_args = ["--vault", str(vault.path), "--db", str(vault.db_path)]

    printed = runner.invoke(app, ["config", "cursor", *vault_args])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout)["mcpServers"]["vaultctx"]["args"][-4:] == [
        "--vault",
        str(vault.path),
        "--db",
        str(vault.db_path),
    ]
    assert not (project / ".cursor").exists()

    (project / ".mcp.json").write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    wrote = runner.invoke(app, ["config", "claude", "--write", *vault_args])
    assert wrote.exit_code == 0, wrote.output
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "vaultctx"}
    assert (project / ".mcp.json.bak").is_file()
    assert (
        "nothing changed" in runner.invoke(app, ["config", "claude", "--write", *vault_args]).stdout
    )

    codex = runner.invoke(app, ["config", "codex", "--write", *vault_args])
    assert codex.exit_code == 0, codex.output
    config = tomllib.loads((tmp_path / "codex-home" / "config.toml").read_text())
    args = config["mcp_servers"]["vaultctx"]["args"]
    assert "serve" in args and args[args.index("--vault") + 1] == str(vault.path)

    (project / ".mcp.json").write_text("{broken")
    refused = runner.invoke(app, ["config", "claude", "--write", *vault_args])
    assert isinstance(refused.exception, ClientConfigError)
    assert "not valid JSON" in str(refused.exception)
    assert str(project / ".mcp.json") in str(refused.exception), "the message names the file"
