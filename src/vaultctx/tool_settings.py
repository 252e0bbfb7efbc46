"""Reading and writing another program's settings file: Claude Code's ``settings.json`` (hooks),
an MCP client's server list (Claude Code, Codex, Cursor).

Such a file may sit in someone else's repository, so it is read only when a write to it would
not follow a planted link, and written through ``atomic_write`` with a backup. Every failure
becomes the caller's own error type, naming the file, saying it was left as it was, and giving
the caller's fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vaultctx.atomic_write import UnsafeWriteError, checked_target, write_atomically
from vaultctx.errors import VaultctxError

# What a settings file held instead of an object, as its error says it.
_JSON_KINDS: dict[type, str] = {
    list: "an array",
    str: "a string",
    bool: "true or false",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def read_settings(path: Path, error: type[VaultctxError], unchanged: str, fix: str) -> str | None:
    """The file's text, or None when there is none; ``error`` (message ending ``; unchanged``)
    when it cannot be read or is a link a write would not follow."""
    try:
        checked_target(path)
        return path.read_text(encoding="utf-8")
    except UnsafeWriteError as exc:
        raise error(f"{exc}; {unchanged}", exc.suggestion) from exc
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read {path} ({exc}); {unchanged}", fix) from exc


def settings_object(
    text: str | None, error: type[VaultctxError], unchanged: str, fix: str, name: str
) -> dict[str, Any]:
    """The JSON object ``text`` holds ({} when there is no text or only blanks); ``error``
    naming the file as ``name`` when it is not one."""
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise error(f"{name} is not valid JSON ({where}); {unchanged}", fix) from exc
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), "a value")
        raise error(f"{name} does not hold a JSON object ({kind}, not an object); {unchanged}", fix)
    return data


def write_settings(
    path: Path, text: str, error: type[VaultctxError], unchanged: str, fix: str
) -> Path | None:
    """Replace the file's text, keeping the old one as a backup (returned, if there was one);
    ``error`` as ``read_settings`` raises it."""
    try:
        return write_atomically(path, text, backup=True)
    except UnsafeWriteError as exc:
        raise error(f"{exc}; {unchanged}", exc.suggestion) from exc
    except OSError as exc:
        raise error(f"cannot write {path} ({exc}); {unchanged}", fix) from exc
