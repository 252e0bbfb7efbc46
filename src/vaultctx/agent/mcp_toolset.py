"""The external MCP servers' tools as one pydantic-ai toolset.

The toolset only lists and routes: the servers' lives belong to ``McpClients``
(agent/mcp_client.py), so an agent run entering and leaving the toolset starts and stops nothing.
Arguments go to the server as the model wrote them (the server checks them against its schema), and
every answer, a failure included, comes back as text.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic_ai.tools import RunContext, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from vaultctx.agent.mcp_tools import ExposedTool

# Any JSON object: the server validates the arguments against its own schema.
ANY_ARGUMENTS = SchemaValidator(
    core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema())
)


class ToolSource(Protocol):
    """What the toolset needs of ``McpClients`` (agent/mcp_client.py)."""

    def tools(self) -> list[ExposedTool]: ...

    async def call(self, name: str, arguments: dict[str, Any]) -> str: ...


class McpToolset(AbstractToolset[Any]):
    """``mcp_{server}_{tool}`` for every tool of every running server."""

    def __init__(self, clients: ToolSource) -> None:
        self.clients = clients

    @property
    def id(self) -> str | None:
        return "vaultctx-mcp"

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            tool.name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=tool.name,
                    description=tool.description,
                    parameters_json_schema=tool.parameters,
                ),
                max_retries=ctx.max_retries,
                args_validator=ANY_ARGUMENTS,
            )
            for tool in self.clients.tools()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        return await self.clients.call(name, tool_args)
