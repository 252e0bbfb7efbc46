"""The texts a tool sends back to the model, in one place.

A tool's result is one string that the model reads and the chat shows. A failure starts with
``Tool execution error:``, which is how the failure tracker (agent/failure_tracker.py) tells a
failure from a success; every other string, informational ones such as "The folder is empty."
included, is a success. A failure says what went wrong and what to do instead, so the model can
recover on its next round.
"""

from __future__ import annotations

from collections.abc import Iterable

from vaultctx.agent.wording import LANGUAGES, say

ERROR_PREFIX = "Tool execution error:"
DENIED = "Tool execution denied by user."
NOT_RUN = "Tool not run: the tool loop stopped after repeated failures. No changes were made."
UNEXPECTED = (
    "the tool failed unexpectedly (a bug in vaultctx, logged for the user). "
    "No further changes were made; try another way or tell the user."
)
NO_ACTIVE_NOTE = "No note is currently open."
EMPTY_FOLDER = "The folder is empty."
NO_TEMPLATES = "No templates saved yet."
EMPTY_QUERY = "The search query is empty. Give the words to look for."
NO_RESULTS = "No search results. Your vault may need indexing (`vaultctx index`)."
_ERROR_PREFIXES = tuple(say(language, ERROR_PREFIX) for language in LANGUAGES)
_DENIALS = frozenset(say(language, DENIED) for language in LANGUAGES)
EXCERPT_CHARS = 500
SUMMARY_CHARS = 80


def tool_error(message: str) -> str:
    """A failure the model can read and recover from."""
    return f"{ERROR_PREFIX} {message}"


def is_tool_error(result: object) -> bool:
    """A failure in any language (agent/wording.py): a switch of language mid-chat must not
    reset the failure count."""
    return isinstance(result, str) and result.startswith(_ERROR_PREFIXES)


def is_denied(result: object) -> bool:
    return isinstance(result, str) and result in _DENIALS


def unknown_tool(name: str) -> str:
    """A call to a tool this turn does not offer (a name the model made up, or remembers)."""
    return tool_error(f"Unknown tool: {name}")


def missing_arguments(keys: Iterable[str]) -> str:
    return tool_error(f"Missing or non-string arguments: {', '.join(keys)}. No changes were made.")


def outside_vault(tool: str, value: str) -> str:
    return tool_error(f"{tool}: paths outside the vault are not allowed: {value}")


def failed(tool: str, message: str, suggestion: str = "") -> str:
    """A ``VaultctxError`` (or a check of our own) raised while ``tool`` ran."""
    fix = f"; {suggestion}" if suggestion else ""
    return tool_error(f"{tool}: {message}{fix}")


def file_not_found(path: str) -> str:
    return tool_error(f"File not found: {path}")


def folder_not_found(folder: str) -> str:
    return tool_error(f"Folder not found: {folder}")


def too_large(tool: str, key: str, size: int, limit: int) -> str:
    return tool_error(
        f"{tool}: `{key}` is {size:,} bytes, over the vault's limit of {limit:,} bytes for a "
        "note (max_file_bytes). No changes were made; write it as several smaller notes."
    )


def invalid_filter(problems: Iterable[str]) -> str:
    lines = "\n".join(f"- {problem}" for problem in problems)
    return tool_error(f"The search filter is not valid:\n{lines}")


def search_failed(message: str) -> str:
    return tool_error(f"Search failed: {message}")


def summary(result: str) -> str:
    """The first line of a result, cut to ``SUMMARY_CHARS``: what a transcript shows of it."""
    first = result.strip().splitlines()[0] if result.strip() else ""
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"
