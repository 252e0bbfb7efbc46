"""The writing MCP tools of ``vaultctx serve --allow-writes``: create, edit, append, move and
delete (into the vault's ``.trash/``).

Each calls the ``Vault`` change method with ``ChangeContext(source="mcp")``, so everything a
client such as Claude Code or Cursor changes is recorded in the AI change ledger and can be
reverted with ``vaultctx undo``. Paths are confined exactly as for reading, and more (no symbolic
links, no control file such as ``.indexignore`` or ``vaultctx.toml``, nothing the ignore rules
exclude, no folder holding either). The tools exist only when the server
was started with ``--allow-writes``; without it the server is read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from vaultctx.api import Vault
from vaultctx.ledger.context import Change, ChangeContext
from vaultctx.mcp import outputs
from vaultctx.vault.writes import CONTENT_OR_FIND_REQUIRED, FIND_REPLACE_TOGETHER, NoteChangeError

WRITE_INSTRUCTIONS = """\
This server may also change the vault: obsidian_create_note, obsidian_edit_note,
obsidian_append_to_note, obsidian_move and obsidian_delete (which moves into the vault's .trash/).
Read a note before editing it. Every change is recorded, and the user can revert the newest with
`vaultctx undo`."""

ADDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
CHANGES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

# Runs one change against the vault and packages its result or error (server._respond).
Respond = Callable[
    [Callable[[Vault], outputs.ChangeOutput], Callable[[outputs.ChangeOutput], str]],
    CallToolResult,
]

PathArg = Annotated[
    str, Field(min_length=1, description="Vault-relative path, e.g. `projects/Plan.md`.")
]


def _output(change: Change, message: str) -> outputs.ChangeOutput:
    return outputs.ChangeOutput(
        message=message if change.record_id else f"No changes: {message}",
        record_id=change.record_id,
        kind=change.kind,
        paths=change.paths,
        replaced=change.replaced,
        rewritten=change.rewritten,
        notices=change.notices,
    )


def _context(label: str) -> ChangeContext:
    return ChangeContext(label=label, source="mcp")


def add_write_tools(server: MCPServer[Any], respond: Respond) -> None:
    def obsidian_create_note(
        path: PathArg,
        content: Annotated[str, Field(description="The whole note, markdown.")],
    ) -> Annotated[CallToolResult, outputs.ChangeOutput]:
        def run(vault: Vault) -> outputs.ChangeOutput:
            change = vault.create_note(path, content, change=_context(f"create_note {path}"))
            return _output(change, f"Note created: {change.paths[0]}")

        return respond(run, outputs.change_text)

    def obsidian_edit_note(
        path: PathArg,
        content: Annotated[
            str | None, Field(description="The new whole note (leave out with find/replace).")
        ] = None,
        find: Annotated[
            str | None,
            Field(description="Exact text to replace, every occurrence (give `replace` too)."),
        ] = None,
        replace: Annotated[str | None, Field(description="What replaces `find`.")] = None,
    ) -> Annotated[CallToolResult, outputs.ChangeOutput]:
        def run(vault: Vault) -> outputs.ChangeOutput:
            if find is not None or replace is not None:
                if find is None or replace is None:
                    raise NoteChangeError(FIND_REPLACE_TOGETHER, "give both, or `content` alone")
                change = vault.edit_note(path, find, replace, change=_context(f"edit_note {path}"))
                shown = f"Note partially updated: {path} ({change.replaced} replaced)"
                return _output(change, shown)
            if content is None:
                raise NoteChangeError(
                    CONTENT_OR_FIND_REQUIRED, "give `content`, or `find` and `replace`"
                )
            change = vault.replace_note(path, content, change=_context(f"edit_note {path}"))
            return _output(change, f"Note updated: {path}")

        return respond(run, outputs.change_text)

    def obsidian_append_to_note(
        path: PathArg,
        content: Annotated[str, Field(description="Text added at the end, after a newline.")],
    ) -> Annotated[CallToolResult, outputs.ChangeOutput]:
        def run(vault: Vault) -> outputs.ChangeOutput:
            change = vault.append_to_note(path, content, change=_context(f"append_to_note {path}"))
            return _output(change, f"Content appended: {path}")

        return respond(run, outputs.change_text)

    def obsidian_move(
        source_path: Annotated[str, Field(min_length=1, description="The note or folder to move.")],
        destination_path: Annotated[
            str, Field(min_length=1, description="Its new vault-relative path (must be free).")
        ],
    ) -> Annotated[CallToolResult, outputs.ChangeOutput]:
        def run(vault: Vault) -> outputs.ChangeOutput:
            label = f"move_file {source_path} -> {destination_path}"
            change = vault.move_path(source_path, destination_path, change=_context(label))
            what = "Folder" if change.is_folder else "File"
            return _output(change, f"{what} moved: {change.paths[0]} → {change.paths[1]}")

        return respond(run, outputs.change_text)

    def obsidian_delete(path: PathArg) -> Annotated[CallToolResult, outputs.ChangeOutput]:
        def run(vault: Vault) -> outputs.ChangeOutput:
            change = vault.trash_path(path, change=_context(f"delete_file {path}"))
            what = "Folder" if change.is_folder else "File"
            return _output(
                change, f"{what} deleted: {change.paths[0]} (moved to {change.paths[1]})"
            )

        return respond(run, outputs.change_text)

    tools: list[tuple[Callable[..., CallToolResult], str, str, ToolAnnotations]] = [
        (
            obsidian_create_note,
            "Create a note",
            "Create a new note at a vault-relative path (missing folders are created). Fails if "
            "anything exists there already.",
            ADDS,
        ),
        (
            obsidian_edit_note,
            "Edit a note",
            "Change an existing note: `content` replaces the whole note; or `find` and `replace` "
            "(both) replace every occurrence of an exact text. Read the note first.",
            CHANGES,
        ),
        (
            obsidian_append_to_note,
            "Append to a note",
            "Add text at the end of an existing note, after a newline.",
            ADDS,
        ),
        (
            obsidian_move,
            "Move or rename",
            "Move or rename a note or folder. The destination must not exist. Links to it in other "
            "notes are updated, as Obsidian does.",
            CHANGES,
        ),
        (
            obsidian_delete,
            "Delete",
            "Delete a note or folder by moving it into the vault's .trash/ folder (recoverable).",
            CHANGES,
        ),
    ]
    for function, title, description, hints in tools:
        server.add_tool(
            function,
            title=title,
            description=description,
            annotations=hints,
            structured_output=True,
        )
