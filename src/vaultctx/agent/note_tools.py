"""The tools that read, write, list, move and delete notes, over ``Vault``'s public methods.

Each takes the checked arguments (agent/tool_contract.py) and returns the text the model reads.
Every write goes through ``Vault``'s write methods, which confine the path, write atomically,
re-index the note and record the change in the undo ledger under the tool's name
(``ToolContext.change``); a ``VaultctxError`` they raise reaches the model as a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.vault.writes import CONTENT_OR_FIND_REQUIRED, FIND_REPLACE_TOGETHER

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext
    from vaultctx.api import Vault
    from vaultctx.ledger.context import Change, ChangeContext
    from vaultctx.notes import NoteText

# What read_note shows of one note before cutting it (a section can be read on its own).
READ_TOKENS = 8000


async def read_note(context: ToolContext, args: dict[str, Any]) -> str:
    note = read_or_failure(context, args["path"])
    return note if isinstance(note, str) else note_text(note)


async def get_active_note(context: ToolContext, args: dict[str, Any]) -> str:
    if context.active_note is None:
        return texts.NO_ACTIVE_NOTE
    note = read_or_failure(context, context.active_note)
    return note if isinstance(note, str) else note_text(note)


def read_or_failure(context: ToolContext, path: str) -> NoteText | str:
    from vaultctx.notes import NoteNotFoundError

    try:
        return context.vault.read_note(path, max_tokens=READ_TOKENS)
    except NoteNotFoundError as exc:
        return texts.tool_error(f"File not found: {path}; {exc.suggestion}")


def note_text(note: NoteText) -> str:
    """ "Path: {path}\\n\\n{content}", and how to read the rest of a note that was cut."""
    shown = f"Path: {note.path}\n\n{note.text}"
    if not note.truncated:
        return shown
    how = (
        f"read one section with read_note path `{note.path}#Heading`, headings: "
        + ", ".join(note.headings)
        if note.headings
        else "search for the part you need"
    )
    return f"{shown}\n\n[Truncated: about {note.tokens} of {note.total_tokens} tokens shown; {how}]"


async def create_note(context: ToolContext, args: dict[str, Any]) -> str:
    return _content_written(context, args, context.vault.create_note, "create_note", "Note created")


async def edit_note(context: ToolContext, args: dict[str, Any]) -> str:
    path = args["path"]
    if "find" in args and "replace" in args and not args["find"]:
        return texts.tool_error(
            "`find` is empty: give the exact text to replace, copied from read_note. "
            "No changes were made."
        )
    change = edit_or_replace(context.vault, path, args, context.change("edit_note", path))
    if isinstance(change, str):
        return texts.tool_error(change)
    if "find" in args:
        shown = _first(change.paths, path)
        return _noted(f"Note partially updated: {shown} ({change.replaced} replaced)", change)
    return _noted(f"Note updated: {_first(change.paths, path)}", change)


def edit_or_replace(
    vault: Vault, path: str, args: Mapping[str, str | None], change: ChangeContext
) -> Change | str:
    """``edit_note`` for the chat model and for an MCP client: ``find`` and ``replace`` together
    replace every occurrence of a text, ``content`` alone replaces the whole note. The change
    made, or what is wrong with the arguments (``FIND_REPLACE_TOGETHER`` or
    ``CONTENT_OR_FIND_REQUIRED``), for each caller to word."""
    find, replace = args.get("find"), args.get("replace")
    if find is not None or replace is not None:
        if find is None or replace is None:
            return FIND_REPLACE_TOGETHER
        return vault.edit_note(path, find, replace, change=change)
    content = args.get("content")
    if content is None:
        return CONTENT_OR_FIND_REQUIRED
    return vault.replace_note(path, content, change=change)


async def append_to_note(context: ToolContext, args: dict[str, Any]) -> str:
    return _content_written(
        context, args, context.vault.append_to_note, "append_to_note", "Content appended"
    )


def _content_written(
    context: ToolContext,
    args: dict[str, Any],
    write: Callable[..., Change],
    tool: str,
    done: str,
) -> str:
    """``create_note`` and ``append_to_note``: ``write`` puts ``content`` at ``path``."""
    path = args["path"]
    change = write(path, args["content"], change=context.change(tool, path))
    return _noted(f"{done}: {_first(change.paths, path)}", change)


async def list_files(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.vault.folders import list_vault_folder
    from vaultctx.vault.scanner import load_ignore_rules

    folder = args.get("folder", "")
    rules, _ = load_ignore_rules(context.vault.path, context.vault.config.settings.ignore)
    entries = list_vault_folder(context.vault.path, folder, rules)
    if entries is None:
        return texts.folder_not_found(folder)
    if not entries:
        return texts.EMPTY_FOLDER
    return "\n".join(f"{'📁' if e.is_folder else '📄'} {e.name}" for e in entries)


async def move_file(context: ToolContext, args: dict[str, Any]) -> str:
    source, destination = args["source_path"], args["destination_path"]
    change = context.vault.move_path(
        source, destination, change=context.change("move_file", f"{source} → {destination}")
    )
    kind = "Folder" if change.is_folder else "File"
    moved = f"{kind} moved: {source} → {destination}"
    rewritten = list(change.rewritten)
    if rewritten:
        moved += f"\nLinks updated in {len(rewritten)} note(s): {', '.join(rewritten)}"
    return _noted(moved, change)


async def delete_file(context: ToolContext, args: dict[str, Any]) -> str:
    path = args["path"]
    change = context.vault.trash_path(path, change=context.change("delete_file", path))
    kind = "Folder" if change.is_folder else "File"
    return _noted(f"{kind} deleted: {path} (moved to the vault's .trash/ folder)", change)


def _noted(result: str, change: Change) -> str:
    """The result and what else the vault reported (e.g. the index could not be updated)."""
    return "\n".join([result, *(f"Note: {notice}" for notice in change.notices)])


def _first(paths: Any, fallback: str) -> str:
    listed = list(paths or ())
    return str(listed[0]) if listed else fallback
