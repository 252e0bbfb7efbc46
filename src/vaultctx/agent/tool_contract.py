"""What every built-in tool call goes through before and after the tool itself runs.

The arguments come from a model, which a note's own text can prompt-inject, so they are checked
as hostile input, in this order (the common contract of the Agent LLMs tools):

1. ``null`` arguments are dropped, as if omitted;
2. every argument the schema types as a string must be one, and every required one present:
   "Missing or non-string arguments: k1, k2. No changes were made.";
3. path-like arguments spelled to leave the vault (absolute, a drive or UNC path, a parent step,
   also once URL-decoded: ``vault.paths.leaves_vault``, the vault's own rule) are refused
   ("{tool}: paths outside the vault are not allowed: {value}"); the rest of the confinement
   (symlinks, ignored files) is the vault's, in every read and write;
4. no text argument may be larger than the vault's ``max_file_bytes``.

Then the tool runs. A ``VaultctxError`` becomes "Tool execution error: {tool}: {message}; {fix}";
any other exception is a bug: it is logged and the model gets a generic failure, so a broken tool
never ends the chat.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.errors import VaultctxError
from vaultctx.vault import paths

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext
    from vaultctx.text_model import TextModel

log = logging.getLogger(__name__)

PATH_KEYS = frozenset(
    {"path", "folder", "source_path", "destination_path", "output_path", "name", "template_name"}
)


@dataclass
class ToolContext:
    """What the tools of one chat turn work on: the vault, and what the session knows.

    ``conversation_id`` is asked for at the first write, so the undo ledger can name the chat
    that made a change; ``open_uri`` opens an ``obsidian://`` link (None: the OS opener).
    """

    vault: Vault
    template_folder: str = "Templates"
    active_note: str | None = None
    conversation_id: Callable[[], str | None] = field(default=lambda: None)
    open_uri: Callable[[str], bool] | None = None
    # The session's own model, for tools that ask it one question (the Second Brain's).
    text_model: TextModel | None = None

    @property
    def max_bytes(self) -> int:
        return self.vault.config.settings.max_file_bytes

    def change(self, tool: str, path: str) -> ChangeContext:
        """The ledger's label for a write by ``tool`` on ``path``."""
        from vaultctx.ledger.context import ChangeContext

        return ChangeContext(label=f"{tool} {path}", conversation_id=self.conversation_id())


ToolFunction = Callable[[ToolContext, dict[str, Any]], Awaitable[str]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it (name, description, JSON schema) and the function that runs
    it. ``writes``: it changes the vault, so the ledger records it and confirmation asks first."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    run: ToolFunction
    writes: bool = False

    @property
    def string_keys(self) -> list[str]:
        properties = self.parameters.get("properties", {})
        return [key for key, schema in properties.items() if schema.get("type") == "string"]

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))


async def run_tool(spec: ToolSpec, raw_args: object, context: ToolContext) -> str:
    """``spec``'s result for the model's ``raw_args``: always a string, never an exception."""
    args = checked_arguments(spec, raw_args, context.max_bytes)
    if isinstance(args, str):
        return args
    try:
        return await spec.run(context, args)
    except Exception as exc:  # every failure goes back to the model as text
        return exception_result(spec.name, exc)


def checked_arguments(spec: ToolSpec, raw_args: object, max_bytes: int) -> dict[str, Any] | str:
    """The arguments with nulls dropped, or the failure text for the first broken rule."""
    if raw_args is None:
        raw_args = {}
    if not isinstance(raw_args, Mapping):
        return texts.failed(spec.name, "the arguments must be a JSON object of named values")
    args = {str(key): value for key, value in raw_args.items() if value is not None}
    wrong = [
        key
        for key in spec.string_keys
        if (key in args and not isinstance(args[key], str))
        or (key not in args and key in spec.required)
    ]
    if wrong:
        return texts.missing_arguments(wrong)
    for key, value in args.items():
        if key in PATH_KEYS and isinstance(value, str) and paths.leaves_vault(value):
            return texts.outside_vault(spec.name, value)
    for key, value in args.items():
        size = _text_bytes(value)
        if size > max_bytes:
            return texts.too_large(spec.name, key, size, max_bytes)
    return args


def exception_result(tool: str, exc: Exception) -> str:
    if isinstance(exc, VaultctxError):
        return texts.failed(tool, exc.message, exc.suggestion)
    log.exception("tool %s failed unexpectedly", tool)
    return texts.failed(tool, texts.UNEXPECTED)


def _text_bytes(value: object) -> int:
    """The UTF-8 size of the text in ``value`` (a string, or the strings of a list or object)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, Mapping):
        return sum(_text_bytes(k) + _text_bytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_text_bytes(item) for item in value)
    return 0
