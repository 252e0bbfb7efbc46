"""Asking the user before a tool changes the vault (``confirm_changes`` under [agent]).

The tools that ask are the ones the undo ledger records (``confirmed_tools``: those
agent/tool_list.py declares as writing, the Second Brain's included) and every MCP tool
(``mcp_*``), whose effects vaultctx cannot see. The question itself is the CLI's: the session
gets a ``Confirm`` callback and hands it a ``ConfirmRequest`` (the tool, its arguments and, for a
change to a note, a unified diff of what it would write). ``always`` stops asking for the rest
of the session; a denial goes back to the model as "Tool execution denied by user.", which is not
a failure.

``confirm_changes`` is on by default (agent/settings.py): ``chat`` and the web UI ask before
every change. ``ask`` asks at a terminal; without one nobody can be asked, so every change is
denied unless ``--allow-changes`` says to make them, and the denied changes are listed after the
answer (``change_target`` names each).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from vaultctx.agent.tool_list import writing_tools

if TYPE_CHECKING:
    from vaultctx.api import Vault

MCP_PREFIX = "mcp_"
MAX_DIFF_LINES = 200
SHOWN_ARGUMENT_CHARS = 200
# A note is read whole for its diff: far more than max_file_bytes allows.
_WHOLE_NOTE_TOKENS = 10_000_000

Decision = Literal["yes", "no", "always"]


@dataclass(frozen=True)
class ConfirmRequest:
    """What the user is asked about: ``diff`` is None for a tool without one (move, delete,
    an MCP tool)."""

    tool: str
    args: Mapping[str, Any]
    diff: str | None = None


Confirm = Callable[[ConfirmRequest], Awaitable[Decision]]


@dataclass
class ConfirmPolicy:
    """Whether to ask before changes, and how: lives as long as the chat, so ``always`` holds
    for the rest of it. ``ask`` None: nobody can be asked, every change is denied."""

    enabled: bool = False
    ask: Confirm | None = None
    always: bool = False

    def applies_to(self, tool: str) -> bool:
        return self.enabled and not self.always and needs_confirmation(tool)


def confirmed_tools() -> frozenset[str]:
    """The built-in tools asked about: those that write, as declared in agent/tool_list.py."""
    return writing_tools()


def needs_confirmation(tool: str) -> bool:
    return tool in confirmed_tools() or tool.startswith(MCP_PREFIX)


# The argument naming what a tool changes, in the order looked for.
_TARGET_ARGUMENTS = ("path", "output_path", "name", "title", "topic")


def change_target(tool: str, args: Mapping[str, Any]) -> str:
    """What a change names as its target, for the line that says it was denied: the note's
    path (a move's two), a template's name, a wiki note's title or topic; an MCP tool's
    arguments, shortened."""
    if tool == "move_file":
        return f"{_text_arg(args, 'source_path')} → {_text_arg(args, 'destination_path')}"
    if tool == "update_index":
        return "index.md"
    for key in _TARGET_ARGUMENTS:
        value = _text_arg(args, key)
        if value is not None:
            return value
    if tool == "architect":
        return "(vault)"
    shown = json.dumps(shortened_arguments(args), ensure_ascii=False)
    return shown if len(shown) <= SHOWN_ARGUMENT_CHARS else shown[:SHOWN_ARGUMENT_CHARS] + "…"


def change_preview(
    vault: Vault, tool: str, args: Mapping[str, Any], *, template_folder: str = "Templates"
) -> str | None:
    """The unified diff of what ``tool`` would write, computed from the note as it is now;
    None when the tool changes no text (move, delete) or the arguments do not say."""
    path = _text_arg(args, "path")
    name = _text_arg(args, "name")
    if tool == "save_template" and name is not None:
        path = f"{template_folder}/{name.strip().removesuffix('.md')}.md"
    if path is None or tool in ("move_file", "delete_file", "apply_template"):
        return None
    current = _current_text(vault, path)
    if tool in ("create_note", "save_template") and (current is None or tool == "create_note"):
        return unified_diff(path, "", _text_arg(args, "content") or "", new_file=True)
    if current is None:
        return None
    if tool == "save_template":
        return unified_diff(path, current, _text_arg(args, "content") or "")
    if tool == "append_to_note":
        return unified_diff(path, current, current + "\n" + (_text_arg(args, "content") or ""))
    if tool == "edit_note":
        find, replace = _text_arg(args, "find"), _text_arg(args, "replace")
        if find is not None and replace is not None:
            edited = replace_all(current, find, replace)
            if edited is None:
                return "(the text to replace is not in the note: the tool will fail)"
            return unified_diff(path, current, edited)
        content = _text_arg(args, "content")
        if content is not None:
            return unified_diff(path, current, content)
    return None


def replace_all(text: str, find: str, replace: str) -> str | None:
    """``edit_note``'s replacement (a ``find`` with LF also matches a CRLF note); None when
    ``find`` is not there."""
    if not find:
        return None
    if find not in text and "\r\n" in text:
        find, replace = _crlf(find), _crlf(replace)
    return text.replace(find, replace) if find in text else None


def unified_diff(path: str, before: str, after: str, *, new_file: bool = False) -> str:
    lines = list(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="/dev/null" if new_file else f"a/{path}",
            tofile=f"b/{path}",
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > MAX_DIFF_LINES:
        hidden = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"… {hidden} more diff lines not shown\n"]
    return "".join(lines) or "(no change to the text)\n"


def _current_text(vault: Vault, path: str) -> str | None:
    """The note at exactly ``path`` (read_note would also find one by its name elsewhere)."""
    from vaultctx.errors import VaultctxError
    from vaultctx.vault.paths import normalize_vault_path

    try:
        note = vault.read_note(path, max_tokens=_WHOLE_NOTE_TOKENS)
        wanted = normalize_vault_path(path)
    except VaultctxError:
        return None  # the tool itself will say what is wrong
    return note.text if note.path in (wanted, wanted + ".md") else None


def _text_arg(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    return value if isinstance(value, str) else None


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def shortened_arguments(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with long texts cut: what a turn's record keeps (a 10 MB ``content``
    stays out of the conversation store) and what the question shows beside the diff."""
    return {key: _cut(value) for key, value in args.items()}


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > SHOWN_ARGUMENT_CHARS:
        return f"{value[:SHOWN_ARGUMENT_CHARS]}… ({len(value):,} characters)"
    if isinstance(value, dict):
        return {str(k): _cut(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(item) for item in value[:50]]
    return value
