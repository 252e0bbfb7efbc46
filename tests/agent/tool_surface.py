"""What clients and models see of the tools: the MCP server's tools/list (read-only and with
``--allow-writes``) with its instructions, and the agent's tool definitions as pydantic-ai sends
them to the model. Snapshotted in ``tool_surface.json``; a refactor must leave it byte-identical."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from mcp import Client
from vaultctx.agent.tool_contract import ToolContext
from vaultctx.agent.toolset import VaultToolset
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server

SNAPSHOT = Path(__file__).with_name("tool_surface.json")


async def mcp_listing(vault: Vault, *, allow_writes: bool) -> dict[str, Any]:
    server = build_server(vault, allow_writes=allow_writes, warm_up="after handshake")
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    return {
        "instructions": server.instructions,
        "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools],
    }


async def agent_definitions(vault: Vault, specs: Any = None) -> list[dict[str, Any]]:
    toolset = (
        VaultToolset(ToolContext(vault))
        if specs is None
        else VaultToolset(ToolContext(vault), specs)
    )
    tools = await toolset.get_tools(None)  # type: ignore[arg-type]
    return [
        {
            "name": tool.tool_def.name,
            "description": tool.tool_def.description,
            "parameters": tool.tool_def.parameters_json_schema,
            "sequential": tool.tool_def.sequential,
            "max_retries": tool.max_retries,
        }
        for tool in tools.values()
    ]


def surface(vault_dir: Path, brain_specs: Any) -> dict[str, Any]:
    """Everything the snapshot holds, for a vault at ``vault_dir`` (no index needed)."""
    logging.getLogger("vaultctx").setLevel(logging.ERROR)
    vault = Vault(vault_dir, db=vault_dir.parent / "surface.db")

    async def gather() -> dict[str, Any]:
        return {
            "mcp read-only": await mcp_listing(vault, allow_writes=False),
            "mcp allow-writes": await mcp_listing(vault, allow_writes=True),
            "agent": await agent_definitions(vault, brain_specs),
        }

    try:
        return asyncio.run(gather())
    finally:
        vault.close()


def dumped(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
