"""MCP client configuration for Claude Code, Codex CLI and Cursor: the snippet, and a safe merge.

Each client keeps its MCP servers in a file that also lists the user's other servers, so writing
means merging: only the ``vaultctx`` entry is set, everything else is kept, the original is copied
to ``<file>.bak`` first (``.bak.1``, ``.bak.2``… once that exists), and a file that does not parse
is never touched. Codex's TOML is edited as text (one table appended or replaced) rather than
re-serialised, so the user's comments and layout survive; the result is parsed again and must
equal the original plus our table.

Every write goes through ``atomic_write``: a project folder may be someone else's repository, and
a link planted at the file, its backup or a staging name must not redirect our JSON into, say,
``~/.bashrc``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vaultctx.api import Vault
from vaultctx.atomic_write import UnsafeWriteError, checked_target, write_atomically
from vaultctx.config import default_db_path
from vaultctx.errors import VaultctxError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ClientName = Literal["claude", "codex", "cursor"]
CLIENTS: tuple[ClientName, ...] = ("claude", "codex", "cursor")
SERVER_KEY = "vaultctx"
_FIX_THE_FILE = "fix the file or move it away, then run again"
# Codex gives a server 10 s to start by default; importing the MCP SDK alone can take seconds on a
# busy machine.
CODEX_STARTUP_TIMEOUT_SEC = 30

_TOML_HEADER = re.compile(r"^\s*\[(?!\[)\s*(?P<name>[^\]]+?)\s*\]\s*(?:#.*)?$")
_TOML_ARRAY_HEADER = re.compile(r"^\s*\[\[")


class ClientConfigError(VaultctxError):
    """The client's file cannot be updated safely; nothing was written."""


@dataclass(frozen=True)
class WriteReport:
    path: Path
    backup: Path | None
    changed: bool


def launch_command(vault: Vault) -> list[str]:
    """The absolute command line that starts this vault's stdio server.

    Clients start servers with a minimal environment and an unknown working folder, so the
    executable and the vault are absolute; ``--db`` appears only when it is not the default
    derived from the vault.
    """
    command = [*_vaultctx_executable(), "serve", "--vault", str(vault.path)]
    if vault.db_path != default_db_path(vault.path):
        command += ["--db", str(vault.db_path)]
    return command


def _vaultctx_executable() -> list[str]:
    """The ``vaultctx`` script of this very installation, else ``python -m vaultctx``."""
    python = Path(sys.executable).absolute()  # not resolved: a venv's python is a symlink
    script = python.parent / ("vaultctx.exe" if os.name == "nt" else "vaultctx")
    if script.is_file():
        return [str(script)]
    on_path = shutil.which("vaultctx")
    if on_path:
        return [str(Path(on_path).absolute())]
    return [str(python), "-m", "vaultctx"]


def config_path(client: ClientName, *, cwd: Path | None = None) -> Path:
    """Claude Code and Cursor read project files in the current folder; Codex a user file."""
    folder = cwd or Path.cwd()
    if client == "claude":
        return folder / ".mcp.json"
    if client == "cursor":
        return folder / ".cursor" / "mcp.json"
    codex_home = os.environ.get("CODEX_HOME")
    return (Path(codex_home) if codex_home else Path.home() / ".codex") / "config.toml"


def server_entry(client: ClientName, command: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if client == "claude":
        return {"type": "stdio", **entry, "env": {}}
    if client == "codex":
        return {**entry, "startup_timeout_sec": CODEX_STARTUP_TIMEOUT_SEC}
    return {**entry, "env": {}}


def snippet(client: ClientName, command: list[str]) -> str:
    """What to paste into the client's file."""
    entry = server_entry(client, command)
    if client == "codex":
        return _toml_table(entry)
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, indent=2, ensure_ascii=False) + "\n"


def merged(client: ClientName, existing: str | None, command: list[str]) -> str:
    """The client's file with our entry set and everything else unchanged."""
    entry = server_entry(client, command)
    if client == "codex":
        return _merged_toml(existing or "", entry)
    return _merged_json(existing, entry)


def write_client_config(client: ClientName, path: Path, command: list[str]) -> WriteReport:
    """Merge our entry into ``path``, keeping a numbered ``.bak`` copy of the previous file.

    ``path`` may be a link to a regular file the user owns (it stays a link); any other link is
    refused before the file is read, so a link to ``/dev/zero`` cannot hang us either.
    """
    try:
        checked_target(path)
        existing = path.read_text(encoding="utf-8") if path.exists() else None
    except UnsafeWriteError as exc:
        raise ClientConfigError(f"{path} {exc.problem}; nothing was written", exc.fix) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientConfigError(
            f"cannot read {path} ({exc}); nothing was written", _FIX_THE_FILE
        ) from exc
    try:
        updated = merged(client, existing, command)
    except ClientConfigError as exc:
        raise ClientConfigError(f"{path}: {exc.message}", exc.suggestion) from exc
    if updated == existing:
        return WriteReport(path, None, changed=False)
    try:
        backup = write_atomically(path, updated, backup=True)
    except UnsafeWriteError as exc:
        raise ClientConfigError(f"{path} {exc.problem}; it was not changed", exc.fix) from exc
    except OSError as exc:
        raise ClientConfigError(
            f"cannot write {path} ({exc}); the file was not changed",
            "make the file and its folder writable, or add the snippet by hand",
        ) from exc
    return WriteReport(path, backup, changed=True)


def _merged_json(existing: str | None, entry: dict[str, Any]) -> str:
    data: Any = {}
    if existing is not None and existing.strip():
        try:
            data = json.loads(existing)
        except json.JSONDecodeError as exc:
            raise ClientConfigError(
                f"the file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "nothing was written",
                _FIX_THE_FILE,
            ) from exc
    if not isinstance(data, dict):
        raise ClientConfigError(
            "the file is JSON but not an object; nothing was written", _FIX_THE_FILE
        )
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ClientConfigError(
            '"mcpServers" in the file is not an object; nothing was written', _FIX_THE_FILE
        )
    servers[SERVER_KEY] = entry
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _merged_toml(existing: str, entry: dict[str, Any]) -> str:
    original = _parse_toml(existing)
    servers = original.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ClientConfigError(
            "`mcp_servers` in the file is not a table; nothing was written", _FIX_THE_FILE
        )
    kept = _without_our_table(existing) if SERVER_KEY in servers else existing
    updated = (kept.rstrip("\n") + "\n\n" if kept.strip() else "") + _toml_table(entry)
    expected = {**original, "mcp_servers": {**servers, SERVER_KEY: entry}}
    try:
        result: dict[str, Any] | None = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        result = None
    if result != expected:
        raise ClientConfigError(
            f"[mcp_servers.{SERVER_KEY}] is written in a form vaultctx does not rewrite (an inline "
            "table or dotted keys)",
            "replace it by hand with the snippet printed without --write",
        )
    return updated


def _parse_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClientConfigError(
            f"the file is not valid TOML ({exc}); nothing was written", _FIX_THE_FILE
        ) from exc


def _without_our_table(text: str) -> str:
    """``text`` minus the ``[mcp_servers.vaultctx]`` table and its sub-tables."""
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        header = _TOML_HEADER.match(line)
        if header is not None:
            inside = _table_key(header["name"])[:2] == ["mcp_servers", SERVER_KEY]
        elif _TOML_ARRAY_HEADER.match(line):
            inside = False
        if not inside:
            kept.append(line)
    return "".join(kept)


def _table_key(name: str) -> list[str]:
    return [part.strip().strip("\"'") for part in name.split(".")]


def _toml_table(entry: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{SERVER_KEY}]"]
    for key, value in entry.items():
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _toml_string(text: str) -> str:
    """A TOML basic string: quote, backslash and control characters escaped (Windows paths)."""
    escaped = []
    for char in text:
        if char in ('"', "\\"):
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'
