"""``vaultctx mcp list``: each server started, counted and stopped; a broken mcp.json is one line
naming the field, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tests.agent.cli_support import agent_env

TEST_SERVER = Path(__file__).with_name("mcp_test_server.py")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A private user config dir (tmp_path/config/vaultctx) and none of our keys."""
    return agent_env(tmp_path, "[agent]\n")


def mcp_list(env: dict[str, str], config: object, *args: str) -> subprocess.CompletedProcess[str]:
    mcp_json = Path(env["XDG_CONFIG_HOME"]) / "vaultctx" / "mcp.json"
    mcp_json.write_text(json.dumps(config), encoding="utf-8")
    argv = [sys.executable, "-m", "vaultctx", "mcp", "list", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def servers(tmp_path: Path) -> dict[str, object]:
    return {
        "mcpServers": {
            "tools": {"command": sys.executable, "args": [str(TEST_SERVER)]},
            "ghost": {"command": str(tmp_path / "no-such-program")},
            "off": {"command": "anything", "disabled": True},
        }
    }


def test_list_starts_each_server_and_reports_it(tmp_path: Path, env: dict[str, str]) -> None:
    done = mcp_list(env, servers(tmp_path), "--json")
    assert done.returncode == 1, done.stderr  # one server failed
    report = json.loads(done.stdout)
    assert report["config"] == str(tmp_path / "config" / "vaultctx" / "mcp.json")
    found = {server["name"]: server for server in report["servers"]}
    assert (found["tools"]["state"], found["tools"]["tools"]) == ("running", 5)
    assert "mcp_tools_echo" in found["tools"]["tool_names"]
    assert found["ghost"]["state"] == "failed"
    assert "cannot start" in found["ghost"]["last_error"]
    assert found["off"]["state"] == "disabled"


def in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    from vaultctx.cli.main import app

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the servers' logs
    monkeypatch.delenv("VAULTCTX_AGENT_MCP_CONFIG", raising=False)
    return CliRunner().invoke(app, ["mcp", "list", *args])


def test_list_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config" / "vaultctx" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps(servers(tmp_path)), encoding="utf-8")
    result = in_process(tmp_path, monkeypatch)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"servers in {config}:",
        "  tools  running     5 tools",
        f"  ghost  failed      0 tools  cannot start {str(tmp_path / 'no-such-program')!r}: "
        "No such file or directory",
        "  off    disabled",
    ]


def test_a_broken_file_is_one_line_naming_the_field(env: dict[str, str]) -> None:
    done = mcp_list(env, {"mcpServers": {"foo": {"command": ["uvx", "foo"]}}})
    assert done.returncode == 2
    assert done.stdout == ""
    assert "mcpServers.foo.command must be a string" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_no_file_means_no_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = in_process(tmp_path, monkeypatch)
    assert result.exit_code == 0, result.output
    wanted = tmp_path / "config" / "vaultctx" / "mcp.json"
    assert result.output == f"no MCP servers ({wanted} does not exist)\n"
