"""The tools as MCP clients and models see them are byte-identical to the snapshot.

MCP clients (and the MCP Inspector check) depend on the tool names, input and output schemas,
titles, hints and the server's instructions; prompts depend on the agent's tool definitions. The
snapshot ``tool_surface.json`` was taken before the tools were declared in one list
(agent/tool_list.py); to change a tool on purpose, regenerate it with ``surface`` and review the
diff."""

from __future__ import annotations

from pathlib import Path

from tests.agent.tool_surface import SNAPSHOT, dumped, surface
from vaultctx.agent.brain_tools import BRAIN_TOOLS
from vaultctx.agent.tool_list import BASIC_TOOLS


def test_tools_seen_by_mcp_clients_and_models_match_the_snapshot(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "A.md").write_text("# A\n", encoding="utf-8")
    now = dumped(surface(vault, BASIC_TOOLS + BRAIN_TOOLS))
    assert now == SNAPSHOT.read_text(encoding="utf-8")
