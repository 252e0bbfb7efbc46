"""The web search switch: what "search the web too" means on the backend and tools at hand.

On a backend that searches by itself (Gemini: Google Search grounding, its ``web_search``
method) the switch turns that on. Elsewhere it needs a connected MCP tool that can reach the web,
recognised as the seed recognises one, by a name holding ``fetch``, ``exa`` or ``brave``; the
question then carries a hint naming those tools. With neither, turning it on is refused with why,
rather than accepted and silently doing nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultctx.agent.llm_backends.registry import get_backend
from vaultctx.errors import VaultctxError

WEB_TOOL_WORDS = ("fetch", "exa", "brave")
NATIVE_HINT = (
    "Web search is on: when the notes fall short, search the web, and cite each web source by "
    "its URL, apart from the notes' citations."
)
MCP_HINT = (
    "Web search is on: when the notes fall short, use {tools} to search the web or fetch "
    "pages, and cite each web source by its URL, apart from the notes' citations."
)


class WebSearchUnavailableError(VaultctxError):
    """Web search was asked for where nothing can search the web."""


@dataclass(frozen=True)
class WebPlan:
    """How this turn searches the web: the backend's builtin tools, and the hint for the model."""

    native_tools: tuple[Any, ...]
    hint: str
    how: str


def web_tool_names(tool_names: Sequence[str]) -> list[str]:
    return [name for name in tool_names if any(word in name.lower() for word in WEB_TOOL_WORDS)]


def plan_web_search(backend: str, model: str, mcp_tool_names: Sequence[str]) -> WebPlan:
    """The plan for turning web search on, or ``WebSearchUnavailableError`` saying why not."""
    native = get_backend(backend).web_search(model)
    if native is not None:
        return WebPlan(native.builtin_tools, NATIVE_HINT, native.how)
    tools = web_tool_names(mcp_tool_names)
    if tools:
        shown = ", ".join(tools)
        return WebPlan((), MCP_HINT.format(tools=shown), f"the MCP tool(s) {shown}")
    raise WebSearchUnavailableError(
        f"web search is not available with the {backend} backend and no MCP web tool",
        "use the gemini backend (Google Search grounding), or connect an MCP server whose tool "
        "name holds fetch, exa or brave (docs/mcp-client.md), then turn web search on again",
    )
