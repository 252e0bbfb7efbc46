"""``vaultctx mcp list``: each server started, counted and stopped; a broken mcp.json is one line
naming the field, never a traceback. In process (the servers are real processes all the same)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

TEST_SERVER = Path(__file__).with_name("mcp_test_server.py")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where mcp.json goes: a private user config dir (and state dir, for the servers' logs)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTCTX_AGENT_MCP_CONFIG", raising=False)
    path = tmp_path / "config" / "vaultctx" / "mcp.json"
    path.parent.mkdir(parents=True)
    return path


def mcp_list(config: Path, servers: object, *args: str) -> Result:
    from vaultctx.cli.main import app

    config.write_text(json.dumps(servers), encoding="utf-8")
    return CliRunner().invoke(app, ["mcp", "list", *args])


def three_servers(tmp_path: Path) -> dict[str, object]:
    return {
        "mcpServers": {
            "tools": {"command": sys.executable, "args": [str(TEST_SERVER)]},
            "ghost": {"command": str(tmp_path / "no-such-program")},
            "off": {"command": "anything", "disabled": True},
        }
    }


def test_list_starts_each_server_and_reports_it(tmp_path: Path, config: Path) -> None:
    result = mcp_list(config, three_servers(tmp_path), "--json")
    assert result.exit_code == 1, result.output  # one server failed
    report = json.loads(result.stdout)
    assert report["config"] == str(config)
    found = {server["name"]: server for server in report["servers"]}
    assert (found["tools"]["state"], found["tools"]["tools"]) == ("running", 5)
    assert "mcp_tools_echo" in found["tools"]["tool_names"]
    assert found["ghost"]["state"] == "failed"
    assert "cannot start" in found["ghost"]["last_error"]
    assert found["off"]["state"] == "disabled"
    assert Path(found["tools"]["log"]).is_file()
    assert Path(found["tools"]["log"]).is_relative_to(tmp_path)


def test_list_as_text(tmp_path: Path, config: Path) -> None:
    result = mcp_list(config, three_servers(tmp_path))
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"servers in {config}:",
        "  tools  running     5 tools",
        f"  ghost  failed      0 tools  cannot start {str(tmp_path / 'no-such-program')!r}: "
        "No such file or directory",
        "  off    disabled",
    ]


def test_a_broken_file_is_one_line_naming_the_field(
    config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultctx.cli.main import run

    config.write_text('{"mcpServers": {"foo": {"command": ["uvx", "foo"]}}}', encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["vaultctx", "mcp", "list"])
    with pytest.raises(SystemExit) as exited:
        run()
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"error: {config}: mcpServers.foo.command must be a string")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_no_file_means_no_servers(config: Path) -> None:
    from vaultctx.cli.main import app

    result = CliRunner().invoke(app, ["mcp", "list"])
    assert result.exit_code == 0, result.output
    assert result.output == f"no MCP servers ({config} does not exist)\n"
