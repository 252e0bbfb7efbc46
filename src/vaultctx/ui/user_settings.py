"""The Obsidian plugin's settings tab: a few keys of the user's own vaultctx.toml, edited in place.

Only the user's file, never the vault's: the backend and the model decide where note text is
sent, and a vault's file may not choose that (``config.without_destinations``). A key's line is
replaced (or added under its table, or the table appended) and everything else in the file is
kept byte for byte, comments included; the result is parsed back and must differ from the
original in that one value only, else nothing is written. Keys are never written here: the tab
sends one to ``store_key``, which puts it in the keyring as ``vaultctx secret set`` does and
writes only its name (``api_key_secret``); no answer ever carries a key back.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultctx.atomic_write import write_atomically
from vaultctx.errors import VaultctxError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class Editable:
    """One setting the tab offers: where it lives and what it may hold."""

    table: str
    key: str
    kind: type


EDITABLE = {
    "backend": Editable("agent", "backend", str),
    "model": Editable("agent", "model", str),
    "effort": Editable("agent", "effort", str),
    "confirm_changes": Editable("agent", "confirm_changes", bool),
    "second_brain": Editable("second_brain", "enabled", bool),
    "api_key_secret": Editable("agent", "api_key_secret", str),
}
MAX_TEXT = 200
MAX_KEY_CHARS = 4096


class SettingsEditError(VaultctxError):
    """The edit was refused; the user's file is unchanged."""


def checked_value(name: str, value: object) -> str | bool:
    """The value the tab sent, checked for the setting ("" removes a text setting)."""
    from vaultctx.agent.effort import LEVELS
    from vaultctx.agent.llm_backends.registry import backend_names

    wanted = EDITABLE.get(name)
    if wanted is None:
        raise SettingsEditError(f"no setting {name!r}", f"use one of {', '.join(EDITABLE)}")
    if not isinstance(value, wanted.kind):
        raise SettingsEditError(f"{name} must be {wanted.kind.__name__}", "send what the tab shows")
    if isinstance(value, bool):
        return value
    text = str(value).strip()
    if len(text) > MAX_TEXT or not text.isprintable():
        raise SettingsEditError(
            f"{name} must be one line of at most {MAX_TEXT} characters", "shorten it"
        )
    if name == "backend" and text and text not in backend_names():
        raise SettingsEditError(f"unknown backend {text!r}", f"use {', '.join(backend_names())}")
    if name == "effort" and text and text not in LEVELS:
        raise SettingsEditError(f"unknown effort {text!r}", f"use {', '.join(LEVELS)}")
    if name == "api_key_secret" and text:
        from vaultctx.agent.secrets import check_secret_name

        check_secret_name(text)
    return text


def _line(key: str, value: str | bool) -> str:
    shown = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value)
    return f"{key} = {shown}"


def edited_toml(text: str, table: str, key: str, value: str | bool) -> str:
    """``text`` with ``[table] key`` set to ``value`` ("" removes it), all else unchanged."""
    lines = text.splitlines(keepends=True)
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if header.match(line.rstrip("\r\n"))), None)
    new = [] if value == "" else [_line(key, value) + "\n"]
    if start is None:
        if not new:
            return text
        gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{gap}[{table}]\n{new[0]}"
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(r"^\s*\[", lines[i])), len(lines)
    )
    assignment = re.compile(rf"^\s*{re.escape(key)}\s*=")
    found = next((i for i in range(start + 1, end) if assignment.match(lines[i])), None)
    if found is not None:
        return "".join(lines[:found] + new + lines[found + 1 :])
    return "".join(lines[: start + 1] + new + lines[start + 1 :])


def _without(data: dict[str, Any], table: str, key: str) -> dict[str, Any]:
    copy = {name: dict(v) if isinstance(v, dict) else v for name, v in data.items()}
    section = copy.get(table)
    if isinstance(section, dict):
        section.pop(key, None)
        if not section:
            copy.pop(table)
    return copy


def set_user_setting(name: str, value: object, user_file: Path) -> Path:
    """Write one setting into the user's vaultctx.toml; the file written."""
    checked = checked_value(name, value)
    where = EDITABLE[name]
    text = user_file.read_text(encoding="utf-8") if user_file.is_file() else ""
    updated = edited_toml(text, where.table, where.key, checked)
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsEditError(
            f"{user_file} is not valid TOML ({exc}); it was left unchanged", "fix it by hand"
        ) from exc
    try:
        after: dict[str, Any] | None = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        after = None
    expected = None if checked == "" else checked
    if (
        after is None
        or after.get(where.table, {}).get(where.key) != expected
        or _without(before, where.table, where.key) != _without(after, where.table, where.key)
    ):
        raise SettingsEditError(
            f"{user_file}: [{where.table}] {where.key} could not be changed on its own line; "
            "the file was left unchanged",
            f"edit it by hand: {_line(where.key, checked)}",
        )
    write_atomically(user_file, updated)
    return user_file


def current_settings(vault: Path) -> dict[str, Any]:
    """What the tab shows: the settings in force for this vault, the user's file and the
    backends to choose from."""
    from vaultctx.agent.effort import LEVELS
    from vaultctx.agent.llm_backends.registry import backend_names
    from vaultctx.agent.settings import load_agent_settings, user_config_file
    from vaultctx.brain.settings import load_second_brain_settings

    agent = load_agent_settings(vault, {})
    key_name = agent.api_key_secret or agent.backend or ""
    return {
        "key_name": key_name,
        "key_set": _key_is_set(key_name),
        "backend": agent.backend or "",
        "model": agent.model or "",
        "effort": agent.effort or "",
        "confirm_changes": agent.confirm_changes,
        "second_brain": load_second_brain_settings(vault).enabled,
        "file": str(user_config_file()),
        "backends": backend_names(),
        "efforts": list(LEVELS),
    }


def _key_is_set(name: str) -> bool:
    """Whether the key named ``name`` can be found (keyring or environment), never what it is."""
    from vaultctx.agent.secrets import get_secret

    try:
        return bool(name) and get_secret(name) is not None
    except VaultctxError:  # a name no keyring takes: nothing is stored under it
        return False


def store_key(value: object, vault: Path, user_file: Path) -> str:
    """Keep ``value`` in the keyring as the key of the backend in force, under the name its
    settings give (``api_key_secret``), else under the backend's own name, which is then written
    as ``api_key_secret`` into the user's file; returns the name. The key goes nowhere else."""
    from vaultctx.agent.secrets import set_secret
    from vaultctx.agent.settings import load_agent_settings

    key = value.strip() if isinstance(value, str) else ""
    if not key or len(key) > MAX_KEY_CHARS or not key.isprintable():
        raise SettingsEditError(
            f"the key must be one line of at most {MAX_KEY_CHARS} characters",
            "paste the key your provider gave you",
        )
    agent = load_agent_settings(vault, {})
    name = agent.api_key_secret or agent.backend
    if not name:
        raise SettingsEditError("no backend is chosen, so the key has no name", "choose a backend")
    set_secret(name, key)
    if not agent.api_key_secret:
        set_user_setting("api_key_secret", name, user_file)
    return name
