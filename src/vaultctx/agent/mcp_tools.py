"""How an external MCP server's tools look to the model: their names (``mcp_{server}_{tool}``),
descriptions and parameters, their results as text, and the line a failure becomes."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types

# Tool names models accept (OpenAI, Gemini and Bedrock alike): this alphabet, at most 64 long.
MAX_TOOL_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class ExposedTool:
    """A server's tool as the model sees it: ``name`` is ``mcp_{server}_{tool}``."""

    name: str
    server: str
    tool: mcp_types.Tool

    @property
    def description(self) -> str:
        return f"[MCP:{self.server}] {self.tool.description or self.tool.name}"

    @property
    def parameters(self) -> dict[str, Any]:
        return self.tool.input_schema or {"type": "object", "properties": {}}


def failure(tool_name: str, detail: str) -> str:
    """What the model reads when a tool could not give an answer."""
    return f"Tool execution error: {tool_name}: {detail}"


def exposed_names(pairs: Sequence[tuple[str, str]]) -> list[str]:
    """``mcp_{server}_{tool}`` for each (server, tool): only ``[A-Za-z0-9_-]``, at most 64
    characters, and unambiguous.

    Server and tool names may both hold ``_``, so two pairs can spell one name: server
    ``github_create``'s tool ``issue`` and server ``github``'s ``create_issue``. Neither may take
    it, or which one a call reaches would depend on the order the servers are listed in: every
    pair whose name is shared gets a suffix of its own, the first 8 hex digits of the SHA-256 of
    the server and tool names (``mcp_github_create_issue_1fd1a2ff``), so each name still says
    where it goes whatever else is configured."""
    bases = [_UNSAFE.sub("_", f"mcp_{server}_{tool}")[:MAX_TOOL_NAME] for server, tool in pairs]
    shared = {base for base in bases if bases.count(base) > 1}
    taken: set[str] = set()
    names = []
    for (server, tool), base in zip(pairs, bases, strict=True):
        name = _with_suffix(base, _digest(server, tool)) if base in shared else base
        number = 2
        while name in taken or (name != base and name in bases):  # the same tool listed twice
            name, number = _with_suffix(base, f"{_digest(server, tool)}_{number}"), number + 1
        taken.add(name)
        names.append(name)
    return names


def _digest(server: str, tool: str) -> str:
    return hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]


def _with_suffix(base: str, suffix: str) -> str:
    return base[: MAX_TOOL_NAME - len(suffix) - 1] + "_" + suffix


def result_text(result: mcp_types.CallToolResult) -> str:
    """A tool result as text: text blocks as they are, resources by their text, other blocks
    as JSON (binary data left out), the structured content only when nothing else came."""
    parts = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        elif isinstance(block, (mcp_types.ImageContent, mcp_types.AudioContent)):
            parts.append(f"[{block.type}: {block.mime_type}, {len(block.data) * 3 // 4} bytes]")
        elif isinstance(block, mcp_types.EmbeddedResource) and isinstance(
            block.resource, mcp_types.TextResourceContents
        ):
            parts.append(block.resource.text)
        else:
            dumped = block.model_dump(mode="json", by_alias=True, exclude_none=True)
            if isinstance(dumped.get("resource"), dict):
                dumped["resource"].pop("blob", None)
            parts.append(json.dumps(dumped, ensure_ascii=False))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return capped("\n".join(parts))


# An external server's result goes into the model's context: one answer may not fill it.
MAX_RESULT_CHARS = 20_000


def capped(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return (
        text[:MAX_RESULT_CHARS]
        + f"\n[Truncated: only the first {MAX_RESULT_CHARS:,} of {len(text):,} characters of this "
        "tool result were kept]"
    )
