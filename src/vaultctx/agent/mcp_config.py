"""The external MCP servers the agent may use: ``mcp.json``, read and checked.

The file has the shape other MCP clients use, so an entry can be copied from one to the other::

    {"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"],
                              "env": {"LOG_LEVEL": "warn"}, "disabled": false}}}

It lives in the user config dir (``mcp.json`` beside ``vaultctx.toml``) unless ``mcp_config``
names another file, and ``mcp_config`` is taken only from the user's own settings, the environment
or a flag, never from a vault's ``vaultctx.toml`` (agent/settings.py): every entry is a program
vaultctx will start. Every mistake is reported as one ``ConfigError`` naming the file and the field
(``mcpServers.fetch.args must be a list of strings``), never as a traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from vaultctx.config import APP_NAME, ConfigError

MCP_CONFIG_FILE_NAME = "mcp.json"
# Server names become part of tool names (mcp_{server}_{tool}), which models accept only in this
# alphabet.
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")
SERVER_KEYS = ("command", "args", "env", "disabled")
EXAMPLE = '{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}'


@dataclass(frozen=True)
class McpServerConfig:
    """One server: the program to run, its arguments and the variables it gets besides ours."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    disabled: bool = False


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME)) / MCP_CONFIG_FILE_NAME


def config_path(setting: str | None) -> Path:
    """The file ``mcp_config`` names (``~`` expanded, a relative path read from the user config
    dir), or the default one."""
    if not setting:
        return default_config_path()
    path = Path(setting).expanduser()
    return path if path.is_absolute() else default_config_path().parent / path


def load_mcp_config(setting: str | None) -> list[McpServerConfig]:
    """The servers of the file ``mcp_config`` names. No file at the default place means no
    servers; a file named explicitly must exist."""
    path = config_path(setting)
    if not path.is_file():
        if setting:
            raise ConfigError(
                f"mcp_config names {path}, which is not a file",
                f"create it (e.g. {EXAMPLE}) or correct mcp_config",
            )
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})", "check the file") from exc
    return parse_mcp_config(text, str(path))


def parse_mcp_config(text: str, source: str) -> list[McpServerConfig]:
    """The servers ``text`` describes, in file order; ``source`` names it in errors."""
    try:
        data = json.loads(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            f"fix the file; the expected shape is {EXAMPLE}",
        ) from None
    except _DuplicateKey as exc:
        raise ConfigError(
            f"{source}: the key {exc.args[0]!r} appears twice", "keep one of them"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a JSON object", f"write it as {EXAMPLE}")
    unknown = sorted(set(data) - {"mcpServers"})
    if unknown:
        raise ConfigError(
            f"{source}: unknown key {unknown[0]!r}", 'put servers under "mcpServers" only'
        )
    servers = data.get("mcpServers")
    if not isinstance(servers, dict):
        raise ConfigError(
            f"{source}: mcpServers must be an object of servers by name"
            if "mcpServers" in data
            else f"{source}: has no mcpServers",
            f"write it as {EXAMPLE}",
        )
    return [_server(name, entry, source) for name, entry in servers.items()]


class _DuplicateKey(Exception):
    pass


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _server(name: str, entry: object, source: str) -> McpServerConfig:
    where = f"mcpServers.{name}"
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(
            f"{source}: server name {name!r} may hold only letters, digits, _ and -",
            "rename it, e.g. to " + repr(re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x"),
        )
    if not isinstance(entry, dict):
        raise ConfigError(
            f"{source}: {where} must be an object", 'write it as {"command": "...", "args": []}'
        )
    unknown = sorted(set(entry) - set(SERVER_KEYS) - {"type"})
    if unknown:
        raise ConfigError(
            f"{source}: {where}: unknown key {unknown[0]!r}", f"use only {', '.join(SERVER_KEYS)}"
        )
    # Claude Code's .mcp.json marks local servers "type": "stdio"; the only kind run here.
    if entry.get("type", "stdio") != "stdio":
        raise ConfigError(
            f"{source}: {where}.type {json.dumps(entry['type'])} is not supported",
            'only local servers started as a program ("type": "stdio", or no type) are run',
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(
            f"{source}: {where}.command must be a string (the program to run)",
            f'e.g. "command": "uvx" (got {json.dumps(command)})',
        )
    args = entry.get("args", [])
    if not isinstance(args, list):
        raise ConfigError(
            f"{source}: {where}.args must be a list of strings",
            f'e.g. "args": ["--port", "8080"] (got {json.dumps(args)})',
        )
    for index, arg in enumerate(args):
        if not isinstance(arg, str):
            raise ConfigError(
                f"{source}: {where}.args[{index}] must be a string",
                f"quote it: {json.dumps(str(arg))}",
            )
    env = entry.get("env", {})
    if not isinstance(env, dict):
        raise ConfigError(
            f"{source}: {where}.env must be an object of strings",
            'e.g. "env": {"API_KEY": "..."}',
        )
    for key, value in env.items():
        if not key or "=" in key:
            raise ConfigError(
                f"{source}: {where}.env has an invalid variable name {key!r}",
                "use a name without '=', e.g. API_KEY",
            )
        if not isinstance(value, str):
            raise ConfigError(
                f"{source}: {where}.env.{key} must be a string",
                f"quote it: {json.dumps(json.dumps(value))}",
            )
    disabled = entry.get("disabled", False)
    if not isinstance(disabled, bool):
        raise ConfigError(
            f"{source}: {where}.disabled must be true or false",
            f'write "disabled": true (got {json.dumps(disabled)})',
        )
    return McpServerConfig(name, command, tuple(args), dict(env), disabled)
