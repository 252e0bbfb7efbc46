"""Every tool, declared once: what the chat model sees, what an MCP client sees, whether it
writes, and what runs it. Everything else is derived from ``TOOLS``:

- the chat's tools (``agent_tools``: agent/toolset.py offers them, the Second Brain's only while
  it is on, agent/brain_tools.py);
- the MCP server's tools (``mcp_tools``: mcp/tool_binding.py; writers only with
  ``vaultctx serve --allow-writes``);
- the tools the undo ledger records under their name and confirmation asks about
  (``writing_tools``: agent/confirm.py);
- the web UI shows a call by the tool's name (ui/chat.py ``tool_step``), so it needs no table.

A tool's chat face is a ``ToolSpec`` (agent/tool_contract.py: name, description, JSON schema,
handler over ``Vault``, ``writes``), its MCP face an ``McpFace`` (agent/mcp_faces.py: name,
title, description, the function whose signature is the input schema, hints). The names and
parameters of the 13 basic chat tools are those of the Agent LLMs plugin's basic tools, so a
prompt written for one works with the other; the MCP names are the ``obsidian_*`` ones clients
know. To add a tool: write its handler, then one ``Tool`` entry here (a Second Brain tool's chat
face sits beside its handler in agent/brain_*_tools.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vaultctx.agent import mcp_faces, note_opener, note_tools, search_tool, template_tools
from vaultctx.agent.brain_read_tools import BRAIN_READ_TOOLS
from vaultctx.agent.brain_write_tools import BRAIN_WRITE_TOOLS
from vaultctx.agent.mcp_faces import McpFace
from vaultctx.agent.tool_contract import ToolSpec


@dataclass(frozen=True)
class Tool:
    """One tool. ``agent``: its face in chat (None: MCP only); ``mcp``: its face to MCP clients
    (None: chat only); ``brain``: offered in chat only while the Second Brain is on."""

    agent: ToolSpec | None = None
    mcp: McpFace | None = None
    brain: bool = False

    def __post_init__(self) -> None:
        face = self._face  # refuses a tool with neither face
        if self.mcp is not None and self.mcp.writes != face.writes:
            raise ValueError(f"{self.name}: its chat and MCP faces disagree on whether it writes")

    @property
    def name(self) -> str:
        """The chat face's name (the undo ledger's label starts with it, for MCP calls too)."""
        return self._face.name

    @property
    def writes(self) -> bool:
        return self._face.writes

    @property
    def _face(self) -> ToolSpec | McpFace:
        if self.agent is not None:
            return self.agent
        if self.mcp is not None:
            return self.mcp
        raise ValueError("a tool needs a chat face, an MCP face or both")


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_PATH = _text("Vault-relative path of the note, e.g. `Projects/Plan.md`.")

TOOLS: tuple[Tool, ...] = (
    Tool(
        ToolSpec(
            "search_vault",
            "Search the user's notes (hybrid keyword and meaning search) and return the best "
            "passages, then passages of notes linked to them, each with its citation "
            "[[path#Heading]] and an excerpt. Filters narrow the notes before ranking.",
            search_tool.SEARCH_PARAMETERS,
            search_tool.search_vault,
        ),
        McpFace(
            "obsidian_search",
            "Search notes",
            "Search the user's Obsidian vault (their personal notes) by meaning and keywords. "
            "Use it first for any question their notes might answer: projects, decisions, "
            "meetings, how-tos, people, past incidents. Returns the best passages with "
            "`path#Section` citations; read a whole note with obsidian_read_note.",
            mcp_faces.obsidian_search,
            "search",
        ),
    ),
    Tool(
        ToolSpec(
            "read_note",
            "Read a note's whole text (front matter included). `path` may also be a citation "
            "`path#Heading` to read one section.",
            _object({"path": _PATH}, ["path"]),
            note_tools.read_note,
        ),
        McpFace(
            "obsidian_read_note",
            "Read a note",
            "Read one note of the vault by its vault-relative path, as given in search or list "
            "results. Pass `section` (a heading's text) to read only that part. Long notes are "
            "cut at max_tokens and the response says so and lists the headings.",
            mcp_faces.obsidian_read_note,
            "note",
        ),
    ),
    Tool(
        ToolSpec(
            "create_note",
            "Create a new note (missing folders are created). "
            "Fails if anything exists at the path.",
            _object(
                {"path": _PATH, "content": _text("The note's markdown text.")}, ["path", "content"]
            ),
            note_tools.create_note,
            writes=True,
        ),
        McpFace(
            "obsidian_create_note",
            "Create a note",
            "Create a new note at a vault-relative path (missing folders are created). Fails if "
            "anything exists there already.",
            mcp_faces.obsidian_create_note,
            "change",
            "adds",
        ),
    ),
    Tool(
        ToolSpec(
            "edit_note",
            "Change an existing note: either `content` alone (replaces the whole note), or "
            "`find` and `replace` together (every occurrence of the exact text `find` is "
            "replaced; copy it from read_note).",
            _object(
                {
                    "path": _PATH,
                    "content": _text("The note's new whole text (full replace)."),
                    "find": _text("Exact text to replace, copied from the note."),
                    "replace": _text("The text to put in its place."),
                },
                ["path"],
            ),
            note_tools.edit_note,
            writes=True,
        ),
        McpFace(
            "obsidian_edit_note",
            "Edit a note",
            "Change an existing note: `content` replaces the whole note; or `find` and `replace` "
            "(both) replace every occurrence of an exact text. Read the note first.",
            mcp_faces.obsidian_edit_note,
            "change",
            "changes",
        ),
    ),
    Tool(
        ToolSpec(
            "append_to_note",
            "Add text at the end of an existing note (on a new line).",
            _object({"path": _PATH, "content": _text("The text to add.")}, ["path", "content"]),
            note_tools.append_to_note,
            writes=True,
        ),
        McpFace(
            "obsidian_append_to_note",
            "Append to a note",
            "Add text at the end of an existing note, after a newline.",
            mcp_faces.obsidian_append_to_note,
            "change",
            "adds",
        ),
    ),
    Tool(
        ToolSpec(
            "list_files",
            "List one folder of the vault (not its subfolders): 📁 folders, then 📄 files.",
            _object(
                {"folder": _text("Vault-relative folder; empty for the vault's top level.")}, []
            ),
            note_tools.list_files,
        ),
    ),
    Tool(
        ToolSpec(
            "get_active_note",
            "Read the note the user has open (given with --note or /note), if any.",
            _object({}, []),
            note_tools.get_active_note,
        ),
    ),
    Tool(
        ToolSpec(
            "open_note",
            "Open a note in the Obsidian app on the user's screen (or give its obsidian:// link).",
            _object({"path": _PATH}, ["path"]),
            note_opener.open_note,
        ),
    ),
    Tool(
        ToolSpec(
            "list_templates",
            "List the saved note templates (the notes in the template folder).",
            _object({}, []),
            template_tools.list_templates,
        ),
    ),
    Tool(
        ToolSpec(
            "save_template",
            "Save a note template in the template folder; an existing template of that name is "
            "overwritten. Use {{placeholder}} for the parts apply_template fills in.",
            _object(
                {
                    "name": _text("The template's name, without a folder or `.md`."),
                    "content": _text("The template's markdown text with {{placeholders}}."),
                },
                ["name", "content"],
            ),
            template_tools.save_template,
            writes=True,
        ),
    ),
    Tool(
        ToolSpec(
            "apply_template",
            "Create a new note from a saved template, replacing each {{key}} with its value.",
            _object(
                {
                    "template_name": _text("The template's name, as list_templates shows it."),
                    "output_path": _text("Vault-relative path of the new note."),
                    "variables": {
                        "type": "object",
                        "description": 'Placeholder values, e.g. {"title": "Kickoff"}.',
                        "additionalProperties": {"type": "string"},
                    },
                },
                ["template_name", "output_path"],
            ),
            template_tools.apply_template,
            writes=True,
        ),
    ),
    Tool(
        ToolSpec(
            "move_file",
            "Move or rename a note or a folder; links to it in other notes are updated.",
            _object(
                {
                    "source_path": _text("Vault-relative path of the note or folder to move."),
                    "destination_path": _text("Its new vault-relative path (must not exist)."),
                },
                ["source_path", "destination_path"],
            ),
            note_tools.move_file,
            writes=True,
        ),
        McpFace(
            "obsidian_move",
            "Move or rename",
            "Move or rename a note or folder. The destination must not exist. Links to it in other "
            "notes are updated, as Obsidian does.",
            mcp_faces.obsidian_move,
            "change",
            "changes",
        ),
    ),
    Tool(
        ToolSpec(
            "delete_file",
            "Delete a note or a folder (moved to the vault's .trash folder, so it can be undone).",
            _object({"path": _text("Vault-relative path of the note or folder.")}, ["path"]),
            note_tools.delete_file,
            writes=True,
        ),
        McpFace(
            "obsidian_delete",
            "Delete",
            "Delete a note or folder by moving it into the vault's .trash/ folder (recoverable).",
            mcp_faces.obsidian_delete,
            "change",
            "changes",
        ),
    ),
    *(Tool(spec, brain=True) for spec in BRAIN_WRITE_TOOLS + BRAIN_READ_TOOLS),
    Tool(
        mcp=McpFace(
            "obsidian_list_notes",
            "List notes",
            "List the vault's notes by folder, tag, type and modification date, newest first, "
            "with titles and tags. Use it to browse or find recent notes, not to search content "
            "(use obsidian_search for that).",
            mcp_faces.obsidian_list_notes,
            "note_list",
        )
    ),
    Tool(
        mcp=McpFace(
            "obsidian_get_context",
            "Get context on a topic",
            "Gather the vault's most relevant passages about a topic into one markdown block with "
            "a Sources list, ready to ground an answer or a plan. Use it for background on a "
            "topic; use obsidian_search to see individual hits.",
            mcp_faces.obsidian_get_context,
            "context",
        )
    ),
)


def agent_tools(*, brain: bool) -> tuple[ToolSpec, ...]:
    """The tools a chat offers, in order: the basic ones, then the Second Brain's if ``brain``."""
    return tuple(
        tool.agent for tool in TOOLS if tool.agent is not None and (brain or not tool.brain)
    )


def mcp_tools(*, allow_writes: bool) -> list[McpFace]:
    """The MCP server's tools, in the order tools/list gives them: the readers, then (only with
    ``--allow-writes``) the writers."""
    faces = [tool.mcp for tool in TOOLS if tool.mcp is not None]
    return [face for face in faces if not face.writes] + (
        [face for face in faces if face.writes] if allow_writes else []
    )


def writing_tools() -> frozenset[str]:
    """The chat tools that change the vault: the undo ledger records each under its name, and
    confirmation asks before each (agent/confirm.py)."""
    return frozenset(tool.name for tool in TOOLS if tool.agent is not None and tool.writes)


BASIC_TOOLS = agent_tools(brain=False)
TOOLS_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in BASIC_TOOLS}
