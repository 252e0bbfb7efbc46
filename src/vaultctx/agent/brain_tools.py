"""Which tools a chat offers (of agent/tool_list.py): the 13 basic ones, and the Second
Brain's 8 once the user has turned it on (docs/second-brain.md). While it is off they are not
offered at all, and a model that calls one anyway (it remembers it from an earlier chat) is told
"Second Brain is turned off", the documented text, rather than that no such tool exists; nothing
of it runs by surprise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.agent import tool_list
from vaultctx.agent import tool_results as texts
from vaultctx.agent.brain_write_tools import BRAIN_OFF
from vaultctx.brain.settings import load_second_brain_settings

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolSpec
    from vaultctx.api import Vault

BRAIN_TOOLS: tuple[ToolSpec, ...] = tuple(
    tool.agent for tool in tool_list.TOOLS if tool.brain and tool.agent is not None
)


def session_tools(vault: Vault) -> tuple[ToolSpec, ...]:
    """The chat tools of ``tool_list.TOOLS``, the Second Brain's while it is on."""
    return tool_list.agent_tools(brain=load_second_brain_settings(vault.path).enabled)


def not_offered(name: str) -> str:
    """The result of a call to a tool the turn does not offer: a Second Brain tool is off (it is
    offered exactly when the Second Brain is on), any other name is unknown."""
    if any(tool.brain and tool.name == name for tool in tool_list.TOOLS):
        return texts.tool_error(BRAIN_OFF)
    return texts.unknown_tool(name)
