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
from vaultctx.mcp.client_config import (
    ClientConfigError,
    merged,
    remove_client_config,
    server_name,
    snippet,
    write_client_config,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

COMMAND = ["/opt/venv/bin/vaultctx", "serve", "--vault", "/home/me/notes"]
OTHER_VAULT = ["/opt/venv/bin/vaultctx", "serve", "--vault", "/home/me/work-wiki"]
NAME = "vaultctx-notes"

# The old single `vaultctx` entry, for the same vault (named in its environment).
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
VAULT_PATH = "/home/me/notes"

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
        entry = tomllib.loads(text)["mcp_servers"][NAME]
        assert entry["startup_timeout_sec"] >= 30
    else:
        entry = json.loads(text)["mcpServers"][NAME]
    assert [entry["command"], *entry["args"]] == COMMAND


@pytest.mark.parametrize(
    ("vault", "name"),
    [
        ("/home/me/notes", "vaultctx-notes"),
        ("/home/me/My Notes (2024)", "vaultctx-my-notes-2024"),
        ("/home/me/a very long vault folder name indeed", "vaultctx-a-very-long-vault-fo"),
        ("/home/me/.obsidian-vault", "vaultctx-obsidian-vault"),
    ],
)
def test_server_names(vault: str, name: str) -> None:
    assert server_name(vault) == name


def test_a_name_without_latin_letters_still_makes_a_valid_name() -> None:
    name = server_name("/home/me/노트")
    assert name.startswith("vaultctx-") and len(name) > len("vaultctx-")
    assert name == server_name("/home/me/노트") != server_name("/home/me/메모")
    assert all(char.isascii() and (char.isalnum() or char in "-_") for char in name)


def test_json_merge_keeps_everything_else() -> None:
    existing: dict[str, Any] = {
        "mcpServers": {
            "github": {"command": "gh-mcp", "args": []},
            "vaultctx": {"command": "/old/vaultctx", "args": ["serve", "--vault", "/elsewhere"]},
        },
        "otherSetting": True,
    }
    result = json.loads(merged("claude", json.dumps(existing), COMMAND))
    assert result["otherSetting"] is True
    assert result["mcpServers"]["github"] == existing["mcpServers"]["github"]
    assert result["mcpServers"]["vaultctx"] == existing["mcpServers"]["vaultctx"]  # another vault
    assert result["mcpServers"][NAME]["args"] == COMMAND[1:]
    assert result["mcpServers"][NAME]["type"] == "stdio"
    assert json.loads(merged("cursor", None, COMMAND))["mcpServers"][NAME]["command"] == COMMAND[0]


@pytest.mark.parametrize("client", client_config.CLIENTS)
def test_a_second_vault_gets_an_entry_of_its_own(client: client_config.ClientName) -> None:
    both = merged(client, merged(client, None, COMMAND), OTHER_VAULT)
    servers = tomllib.loads(both)["mcp_servers"] if client == "codex" else None
    servers = servers or json.loads(both)["mcpServers"]
    assert set(servers) == {NAME, "vaultctx-work-wiki"}
    assert servers[NAME]["args"] == COMMAND[1:]
    assert servers["vaultctx-work-wiki"]["args"] == OTHER_VAULT[1:]
    assert merged(client, both, OTHER_VAULT) == both


@pytest.mark.parametrize(
    "old",
    [
        {"command": "/old/bin/vaultctx", "args": ["serve", "--vault", "/home/me/notes"]},
        {"command": "/old/bin/python", "args": ["-m", "vaultctx", "serve", "-v", "/home/me/notes"]},
        {"command": "vaultctx", "args": ["serve"], "env": {"VAULT_PATH": "/home/me/notes"}},
    ],
)
def test_the_old_entry_of_the_same_vault_is_replaced(old: dict[str, Any]) -> None:
    existing = {"mcpServers": {"vaultctx": old, "other": {"command": "x"}}}
    servers = json.loads(merged("claude", json.dumps(existing), COMMAND))["mcpServers"]
    assert set(servers) == {"other", NAME}


def test_two_vaults_in_folders_of_the_same_name_both_get_an_entry() -> None:
    home = ["/opt/venv/bin/vaultctx", "serve", "--vault", "/home/me/personal/notes"]
    both = json.loads(merged("claude", merged("claude", None, COMMAND), home))["mcpServers"]
    assert len(both) == 2 and NAME in both
    [other] = set(both) - {NAME}
    assert other.startswith(f"{NAME}-") and both[other]["args"] == home[1:]
    assert json.dumps(both) == json.dumps(
        json.loads(merged("claude", json.dumps({"mcpServers": both}), home))["mcpServers"]
    )


def test_a_foreign_server_of_that_name_is_kept() -> None:
    existing = {"mcpServers": {NAME: {"command": "someone-elses-server"}}}
    servers = json.loads(merged("claude", json.dumps(existing), COMMAND))["mcpServers"]
    assert servers[NAME] == {"command": "someone-elses-server"} and len(servers) == 2


@pytest.mark.parametrize("client", client_config.CLIENTS)
def test_remove_takes_out_this_vaults_entries_only(
    client: client_config.ClientName, tmp_path: Path
) -> None:
    path = tmp_path / ("config.toml" if client == "codex" else "mcp.json")
    write_client_config(client, path, COMMAND)
    write_client_config(client, path, OTHER_VAULT)
    before = path.read_text(encoding="utf-8")
    report = remove_client_config(client, path, Path("/home/me/notes"))
    assert report.changed and report.removed == (NAME,)
    assert report.backup is not None and report.backup.read_text(encoding="utf-8") == before
    text = path.read_text(encoding="utf-8")
    servers = tomllib.loads(text)["mcp_servers"] if client == "codex" else None
    assert set(servers or json.loads(text)["mcpServers"]) == {"vaultctx-work-wiki"}
    again = remove_client_config(client, path, Path("/home/me/notes"))
    assert not again.changed and path.read_text(encoding="utf-8") == text
    missing = remove_client_config(client, tmp_path / "none.json", Path("/home/me/notes"))
    assert not missing.changed and not (tmp_path / "none.json").exists()


def test_toml_remove_keeps_comments_and_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CODEX_CONFIG, encoding="utf-8")
    original = tomllib.loads(CODEX_CONFIG)
    report = remove_client_config("codex", path, Path("/home/me/notes"))
    assert report.removed == ("vaultctx",)  # the old entry, recognised by its VAULT_PATH
    removed = path.read_text(encoding="utf-8")
    result = tomllib.loads(removed)
    assert "vaultctx" not in result["mcp_servers"]
    assert result["mcp_servers"]["docs"] == original["mcp_servers"]["docs"]
    assert result["profiles"] == original["profiles"] and "# the good one" in removed


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
    assert set(result["mcp_servers"]) == {"docs", NAME}  # the old `vaultctx` table is gone
    ours = result["mcp_servers"][NAME]
    assert [ours["command"], *ours["args"]] == COMMAND and "env" not in ours
    assert "# my codex settings" in result_text and "# the good one" in result_text
    assert merged("codex", result_text, COMMAND) == result_text


def test_toml_merge_into_empty_or_missing_file() -> None:
    for existing in (None, "", "\n"):
        parsed = tomllib.loads(merged("codex", existing, COMMAND))
        assert list(parsed["mcp_servers"]) == [NAME]


def test_toml_strings_are_escaped() -> None:
    windows = ['C:\\Program Files\\vaultctx\\"vaultctx".exe', "serve", "--vault", "D:\\notes\ttab"]
    [entry] = tomllib.loads(merged("codex", "", windows))["mcp_servers"].values()
    assert [entry["command"], *entry["args"]] == windows


OURS = '["serve", "--vault", "/home/me/notes"]'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model = \n", "not valid TOML"),
        (f"[mcp_servers]\nvaultctx = {{ command = 'vaultctx', args = {OURS} }}\n", "by hand"),
        (
            f"mcp_servers.vaultctx.command = 'vaultctx'\nmcp_servers.vaultctx.args = {OURS}\n",
            "by hand",
        ),
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
    name = server_name(vault.path)
    assert json.loads(printed.stdout)["mcpServers"][name]["args"][-4:] == [
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
    assert set(servers) == {"other", name} and f"wrote the {name} server" in wrote.stdout
    assert (project / ".mcp.json.bak").is_file()
    assert (
        "nothing changed" in runner.invoke(app, ["config", "claude", "--write", *vault_args]).stdout
    )

    codex = runner.invoke(app, ["config", "codex", "--write", *vault_args])
    assert codex.exit_code == 0, codex.output
    config = tomllib.loads((tmp_path / "codex-home" / "config.toml").read_text())
    args = config["mcp_servers"][name]["args"]
    assert "serve" in args and args[args.index("--vault") + 1] == str(vault.path)

    second = tmp_path / "Work Wiki"
    second.mkdir()
    other = runner.invoke(app, ["config", "claude", "--write", "--vault", str(second)])
    assert other.exit_code == 0, other.output
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", name, "vaultctx-work-wiki"}
    removed = runner.invoke(app, ["config", "claude", "--remove", *vault_args])
    assert removed.exit_code == 0, removed.output
    assert f"removed {name} from" in removed.stdout
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"other", "vaultctx-work-wiki"}
    again = runner.invoke(app, ["config", "claude", "--remove", *vault_args])
    assert again.exit_code == 0 and "nothing changed" in " ".join(again.stdout.split())
    codex_removed = runner.invoke(app, ["config", "codex", "--remove", *vault_args])
    assert codex_removed.exit_code == 0, codex_removed.output
    assert "mcp_servers" not in tomllib.loads((tmp_path / "codex-home" / "config.toml").read_text())

    (project / ".mcp.json").write_text("{broken")
    refused = runner.invoke(app, ["config", "claude", "--write", *vault_args])
    assert isinstance(refused.exception, ClientConfigError)
    assert "not valid JSON" in str(refused.exception)
    assert str(project / ".mcp.json") in str(refused.exception), "the message names the file"
