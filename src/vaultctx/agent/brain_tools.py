"""Which tools a chat offers: the 13 basic ones, and the Second Brain's 8 once the user has
turned it on (docs/second-brain.md). While it is off they are not offered at all, and a model that
calls one anyway (it remembers it from an earlier chat) is told "Second Brain is turned off", the
documented text, rather than that no such tool exists; nothing of it runs by surprise."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.agent import tool_results as texts
from vaultctx.agent.brain_read_tools import BRAIN_READ_TOOLS
from vaultctx.agent.brain_write_tools import BRAIN_OFF, BRAIN_WRITE_TOOLS
from vaultctx.agent.tools import BASIC_TOOLS
from vaultctx.brain.settings import load_second_brain_settings

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolSpec
    from vaultctx.api import Vault

BRAIN_TOOLS: tuple[ToolSpec, ...] = BRAIN_WRITE_TOOLS + BRAIN_READ_TOOLS
BRAIN_TOOL_NAMES = frozenset(spec.name for spec in BRAIN_TOOLS)


def session_tools(vault: Vault) -> tuple[ToolSpec, ...]:
    if load_second_brain_settings(vault.path).enabled:
        return BASIC_TOOLS + BRAIN_TOOLS
    return BASIC_TOOLS


def not_offered(name: str) -> str:
    """The result of a call to a tool the turn does not offer: a Second Brain tool is off (it is
    offered exactly when the Second Brain is on), any other name is unknown."""
    if name in BRAIN_TOOL_NAMES:
        return texts.tool_error(BRAIN_OFF)
    return texts.unknown_tool(name)
