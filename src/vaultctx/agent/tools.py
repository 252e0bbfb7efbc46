"""The assistant's 13 built-in tools: names, parameters and descriptions as the model sees them.

The names and parameters are those of the Agent LLMs plugin's basic tools, so a prompt written for
one works with the other. Each ``ToolSpec`` points at the function that runs it (note_tools,
search_tool, template_tools, note_opener); ``writes`` marks the tools that change the vault, which
the undo ledger records and confirmation asks about (agent/confirm.py keeps that list and a test
keeps the two equal). New tools join ``BASIC_TOOLS`` or a list of their own beside it.
"""

from __future__ import annotations

from typing import Any

from vaultctx.agent import note_opener, note_tools, search_tool, template_tools
from vaultctx.agent.tool_contract import ToolSpec


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _text(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_PATH = _text("Vault-relative path of the note, e.g. `Projects/Plan.md`.")

BASIC_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search_vault",
        "Search the user's notes (hybrid keyword and meaning search) and return the best "
        "passages, each with its citation [[path#Heading]] and an excerpt. Filters narrow the "
        "notes before ranking.",
        search_tool.SEARCH_PARAMETERS,
        search_tool.search_vault,
    ),
    ToolSpec(
        "read_note",
        "Read a note's whole text (front matter included). `path` may also be a citation "
        "`path#Heading` to read one section.",
        _object({"path": _PATH}, ["path"]),
        note_tools.read_note,
    ),
    ToolSpec(
        "create_note",
        "Create a new note (missing folders are created). Fails if anything exists at the path.",
        _object(
            {"path": _PATH, "content": _text("The note's markdown text.")}, ["path", "content"]
        ),
        note_tools.create_note,
        writes=True,
    ),
    ToolSpec(
        "edit_note",
        "Change an existing note: either `content` alone (replaces the whole note), or `find` "
        "and `replace` together (every occurrence of the exact text `find` is replaced; copy it "
        "from read_note).",
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
    ToolSpec(
        "append_to_note",
        "Add text at the end of an existing note (on a new line).",
        _object({"path": _PATH, "content": _text("The text to add.")}, ["path", "content"]),
        note_tools.append_to_note,
        writes=True,
    ),
    ToolSpec(
        "list_files",
        "List one folder of the vault (not its subfolders): 📁 folders, then 📄 files.",
        _object({"folder": _text("Vault-relative folder; empty for the vault's top level.")}, []),
        note_tools.list_files,
    ),
    ToolSpec(
        "get_active_note",
        "Read the note the user has open (given with --note or /note), if any.",
        _object({}, []),
        note_tools.get_active_note,
    ),
    ToolSpec(
        "open_note",
        "Open a note in the Obsidian app on the user's screen (or give its obsidian:// link).",
        _object({"path": _PATH}, ["path"]),
        note_opener.open_note,
    ),
    ToolSpec(
        "list_templates",
        "List the saved note templates (the notes in the template folder).",
        _object({}, []),
        template_tools.list_templates,
    ),
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
    ToolSpec(
        "delete_file",
        "Delete a note or a folder (moved to the vault's .trash folder, so it can be undone).",
        _object({"path": _text("Vault-relative path of the note or folder.")}, ["path"]),
        note_tools.delete_file,
        writes=True,
    ),
)

TOOLS_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in BASIC_TOOLS}
WRITING_TOOLS = frozenset(spec.name for spec in BASIC_TOOLS if spec.writes)
