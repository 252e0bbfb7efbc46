"""The MCP server's tools, made from the declarations in agent/tool_list.py.

Each ``McpFace`` becomes one SDK tool: its ``arguments`` function's signature is the input
schema, its output kind picks the pydantic model that is the output schema (mcp/outputs.py), and
its hints the annotations. The writers (create, edit, append, move, delete into ``.trash/``) are
added only when the server was started with ``--allow-writes``; without it the server is
read-only.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from vaultctx.agent.mcp_faces import ChangeDone, McpFace
from vaultctx.agent.tool_list import mcp_tools
from vaultctx.api import Vault
from vaultctx.mcp import outputs

WRITE_INSTRUCTIONS = """\
This server may also change the vault: obsidian_create_note, obsidian_edit_note,
obsidian_append_to_note, obsidian_move and obsidian_delete (which moves into the vault's .trash/).
Read a note before editing it. Every change is recorded, and the user can revert the newest with
`vaultctx undo`."""

HINTS = {
    "read": ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    "adds": ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    ),
    "changes": ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
    ),
}


def change_output(done: ChangeDone) -> outputs.ChangeOutput:
    """A writer's value as the client gets it; "No changes: …" when nothing was recorded."""
    change = done.change
    fields = {k: v for k, v in asdict(change).items() if k in outputs.ChangeOutput.model_fields}
    message = done.message if change.record_id else f"No changes: {done.message}"
    return outputs.ChangeOutput(message=message, **fields)


# For each output kind: the output schema's model, the value → model step, the text for the model.
OUTPUTS: dict[str, tuple[type[BaseModel], Callable[[Any], Any], Callable[[Any], str]]] = {
    "search": (outputs.SearchOutput, outputs.search_output, outputs.search_text),
    "note": (outputs.NoteOutput, outputs.note_output, outputs.note_text),
    "note_list": (outputs.NoteListOutput, outputs.note_list_output, outputs.note_list_text),
    "context": (outputs.ContextOutput, outputs.context_output, outputs.context_text),
    "change": (outputs.ChangeOutput, change_output, outputs.change_text),
}

Run = Callable[[Vault], Any]
# Runs one call against the vault and packages its result or error (server._respond): the run,
# the text for the model, ``soon``, the run while the models load (or None), and whether the
# tool writes (writes wait for each other; reads run side by side).
Respond = Callable[[Run, Callable[[Any], str], bool, Run | None, bool], Awaitable[CallToolResult]]


def add_tools(
    server: MCPServer[Any],
    respond: Respond,
    warming_for: Callable[[], float],
    *,
    allow_writes: bool,
) -> None:
    """Every tool of agent/tool_list.py with an MCP face; the writers only if ``allow_writes``.
    ``warming_for`` is the seconds since the model warm-up began (for a keyword-first answer)."""
    for face in mcp_tools(allow_writes=allow_writes):
        server.add_tool(
            sdk_function(face, respond, warming_for),
            title=face.title,
            description=face.description,
            annotations=HINTS[face.hints],
            structured_output=True,
        )


def sdk_function(
    face: McpFace, respond: Respond, warming_for: Callable[[], float]
) -> Callable[..., Awaitable[CallToolResult]]:
    """The function the SDK registers: named as the tool, with the face's arguments as its
    signature and the output model as its structured result. A coroutine: ``respond`` picks the
    worker thread the call runs on (server.py), where the SDK would take one from its shared
    pool for a plain function."""
    model, convert, render = OUTPUTS[face.output]

    async def tool(**arguments: Any) -> CallToolResult:
        call = face.arguments(**arguments)
        warming = call.while_warming
        return await respond(
            lambda vault: convert(call.run(vault)),
            render,
            call.soon,
            None if warming is None else (lambda vault: convert(warming(vault, warming_for))),
            face.writes,
        )

    signature = inspect.signature(face.arguments, eval_str=True)
    tool.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation=Annotated[CallToolResult, model]
    )
    tool.__name__ = tool.__qualname__ = face.name
    return tool
