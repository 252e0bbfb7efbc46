"""Our assistant searching through our own MCP server: `vaultctx ask` with `vaultctx serve` in the
user's mcp.json calls `mcp_vaultctx_obsidian_search`, and the server's real results reach the
model."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.agent.cli_support import KEY, Indexed, agent_env, ask, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.conftest import REPO


def test_ask_calls_a_tool_of_an_external_mcp_server(indexed: Indexed, tmp_path: Path) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "vaultctx", "serve", "--vault", str(indexed.vault), "--db", str(indexed.db)],
        "env": {
            "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]),
            "VAULTCTX_ENGINE": "off",  # the server itself, not a relay to an engine left running
        },
    }
    with OpenAIFake() as fake:
        fake.queue(
            Answer(tool_calls=[ToolCall("mcp_vaultctx_obsidian_search", {"query": "WAL mode"})]),
            Answer("It is in [[30-resources/databases/SQLite tuning#WAL mode]]."),
        )
        env = agent_env(
            tmp_path, "[agent]\n" + openai_toml(fake) + "translate = false\n", OPENAI_TEST=KEY
        )
        (tmp_path / "config" / "vaultctx" / "mcp.json").write_text(
            json.dumps({"mcpServers": {"vaultctx": server}}), encoding="utf-8"
        )
        # An MCP tool's effects are unknown, so without a terminal it runs only when allowed.
        result = ask(indexed, env, "where is WAL explained?", "--json", "--allow-changes")
        requests = [r.json for r in fake.requests_to("/chat/completions")]
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [call["name"] for call in out["tool_calls"]] == ["mcp_vaultctx_obsidian_search"]
    offered = [tool["function"]["name"] for tool in requests[0]["tools"]]
    assert "mcp_vaultctx_obsidian_search" in offered and "search_vault" in offered
    tool_result = next(m for m in requests[1]["messages"] if m["role"] == "tool")
    assert "SQLite tuning.md" in tool_result["content"]
    assert out["unresolved"] == []
