"""An external MCP server is a program someone else wrote: what it says about itself never drives
the user's terminal, and its tool names cannot capture another server's calls.

- The last line of its stderr becomes the reason it failed, shown by ``vaultctx mcp list`` and by
  the chat; escape sequences in it (OSC 52 clipboard write, screen clear, a hidden OSC 8 link) are
  dropped on every path (src/vaultctx/agent/mcp_client.py, ``last_error``).
- ``mcp_{server}_{tool}`` names that two servers would share go to neither
  (src/vaultctx/agent/mcp_tools.py, ``exposed_names``): server ``github_create``'s tool ``issue``
  cannot take the name of server ``github``'s ``create_issue``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import mcp_types
import pytest
from typer.testing import CliRunner

from tests.agent.cli_support import KEY, Indexed, agent_env, indexed_example, openai_toml
from tests.agent.fakes import OpenAIFake
from vaultctx.agent.mcp_client import McpClients
from vaultctx.agent.mcp_config import McpServerConfig
from vaultctx.agent.mcp_tools import exposed_names

TEST_SERVER = Path(__file__).parents[1] / "agent" / "mcp_test_server.py"
HOSTILE_LINE = (
    "boom \x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m"
    "\x1b]8;;https://evil.example\x1b\\click here\x1b]8;;\x1b\\ done"
)


def controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F]


def hostile_servers(tmp_path: Path) -> dict[str, object]:
    """A server that writes ``HOSTILE_LINE`` to stderr and exits before the handshake."""
    env = {"REFUSE_FILE": str(TEST_SERVER), "REFUSE_LINE": HOSTILE_LINE}  # the file exists
    server = {"command": sys.executable, "args": [str(TEST_SERVER)], "env": env}
    return {"mcpServers": {"hostile": server}}


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("VAULTCTX_AGENT_MCP_CONFIG", raising=False)
    path = tmp_path / "config" / "vaultctx" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(hostile_servers(tmp_path)), encoding="utf-8")
    return path


@pytest.mark.parametrize("as_json", [False, True])
def test_mcp_list_prints_no_escape_a_server_wrote(config: Path, as_json: bool) -> None:
    from vaultctx.cli.main import app

    result = CliRunner().invoke(app, ["mcp", "list", *(["--json"] if as_json else [])])
    assert result.exit_code == 1, result.output
    shown = result.output
    if as_json:
        shown = json.loads(result.stdout)["servers"][0]["last_error"]
    assert "exited with status 4: boom" in shown
    assert "click here" in shown  # the words stay, the sequences go
    assert controls(shown) == []


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    return indexed_example(tmp_path_factory)


def test_the_chat_prints_no_escape_a_server_wrote(indexed: Indexed, tmp_path: Path) -> None:
    with OpenAIFake() as fake:
        env = agent_env(tmp_path, "[agent]\n" + openai_toml(fake), OPENAI_TEST=KEY)
        (tmp_path / "config" / "vaultctx" / "mcp.json").write_text(
            json.dumps(hostile_servers(tmp_path)), encoding="utf-8"
        )
        argv = [sys.executable, "-m", "vaultctx", "chat"]
        argv += ["--vault", str(indexed.vault), "--db", str(indexed.db)]
        result = subprocess.run(
            argv, input="/mcp\n/quit\n", capture_output=True, text=True, env=env, timeout=300
        )
    assert result.returncode == 0, result.stderr
    assert "MCP server hostile did not start: exited with status 4: boom" in result.stderr
    assert "hostile: failed" in result.stdout + result.stderr
    assert controls(result.stdout) == [] and controls(result.stderr) == []


def test_a_server_cannot_take_another_servers_tool_name() -> None:
    pairs = [("github_create", "issue"), ("github", "create_issue")]
    forward = exposed_names(pairs)
    backward = exposed_names(pairs[::-1])
    assert forward == backward[::-1]  # the order servers are listed in decides nothing
    assert "mcp_github_create_issue" not in forward
    assert len(set(forward)) == 2


def test_a_call_reaches_the_server_its_name_says(tmp_path: Path) -> None:
    servers = [
        McpServerConfig("github_create", "unused"),
        McpServerConfig("github", "unused"),
    ]
    clients = McpClients(servers, log_dir=tmp_path)
    # Each server's last listing, as if both had run and then failed.
    for server, tool in zip(clients.servers, ["issue", "create_issue"], strict=True):
        server.tools = [mcp_types.Tool(name=tool, input_schema={"type": "object"})]
        server.state = "failed"
    tools = clients.tools()
    assert len({tool.name for tool in tools}) == 2
    for tool in tools:
        answer = asyncio.run(clients.call(tool.name, {}))
        assert f"server {tool.server!r} is unavailable" in answer
