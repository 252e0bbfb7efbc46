"""MCP client configuration for Claude Code, Codex CLI and Cursor: the snippet, and a safe merge.

Each client keeps its MCP servers in a file that also lists the user's other servers, so writing
means merging: only this vault's entry is set (or, with ``--remove``, taken out), everything else
is kept, the original is copied to ``<file>.bak`` first (``.bak.1``, ``.bak.2``… once that
exists), and a file that does not parse is never touched. Codex's TOML is edited as text (tables
appended or taken out) rather than re-serialised, so the user's comments and layout survive; the
result is parsed again and must equal the original with just our change.

Every vault has an entry of its own, ``vaultctx-<vault folder name>``, so configuring a second
vault adds a server next to the first instead of replacing it. An entry is recognised as this
vault's by what it runs (``vaultctx serve`` for this ``--vault``, or ``VAULT_PATH`` in its
environment), whatever its name: the single ``vaultctx`` entry of earlier versions is replaced by
the new one for its vault, and an entry of another vault or program is never touched.

Every write goes through ``atomic_write``: a project folder may be someone else's repository, and
a link planted at the file, its backup or a staging name must not redirect our JSON into, say,
``~/.bashrc``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any, Literal

from vaultctx.api import Vault
from vaultctx.config import default_db_path
from vaultctx.errors import VaultctxError
from vaultctx.tool_settings import read_settings, settings_object, write_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ClientName = Literal["claude", "codex", "cursor"]
CLIENTS: tuple[ClientName, ...] = ("claude", "codex", "cursor")
SERVER_PREFIX = "vaultctx-"
# Clients name tools `mcp__<server>__<tool>`, and some model APIs cap tool names at 64 characters:
# with the longest tool name (obsidian_get_context) and a disambiguating suffix, 20 fit.
MAX_FOLDER_CHARS = 20
_CLI_NAMES = ("vaultctx", "vaultctx.exe")
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
    """``name`` is the entry written; ``removed``, the other entries of this vault taken out
    (the old ``vaultctx`` one), or with ``--remove`` every entry of this vault."""

    path: Path
    backup: Path | None
    changed: bool
    name: str | None = None
    removed: tuple[str, ...] = ()


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


def server_name(vault: Path | str) -> str:
    """``vaultctx-<folder name>``, in the characters every client accepts (letters, digits, ``-``
    and ``_``); a name with none of them gets a digest of the path instead."""
    slug = re.sub(r"[^a-z0-9_-]+", "-", Path(vault).name.lower()).strip("-_")
    slug = slug[:MAX_FOLDER_CHARS].strip("-_") or _digest(str(vault))
    return f"{SERVER_PREFIX}{slug}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def served_vault(entry: object) -> str | None:
    """The vault a client's server entry runs ``vaultctx serve`` for (its ``--vault``, else its
    ``VAULT_PATH``), or None for an entry of any other program."""
    if not isinstance(entry, dict):
        return None
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return None
    words = [command, *(arg for arg in args if isinstance(arg, str))]
    if PureWindowsPath(command).name in _CLI_NAMES and words[1:2] == ["serve"]:
        options = words[2:]
    elif words[1:4] == ["-m", "vaultctx", "serve"]:
        options = words[4:]
    else:
        return None
    for flag in ("--vault", "-v"):
        if flag in options[:-1]:
            return options[options.index(flag) + 1]
    env = entry.get("env")
    vault = env.get("VAULT_PATH") if isinstance(env, dict) else None
    return vault if isinstance(vault, str) else None


def _serves(entry: object, vault: str) -> bool:
    found = served_vault(entry)
    if found is None:
        return False
    return os.path.normpath(os.path.expanduser(found)) == os.path.normpath(vault)


def _entries_of(servers: dict[str, Any], vault: str) -> list[str]:
    return [name for name, entry in servers.items() if _serves(entry, vault)]


def _name_in(servers: dict[str, Any], vault: str) -> str:
    """This vault's entry name in ``servers``: ``server_name``, or with a digest of the path when
    another entry has it (``~/work/notes`` and ``~/home/notes`` are both ``vaultctx-notes``)."""
    plain = server_name(vault)
    for name in (plain, f"{plain}-{_digest(vault)}"):
        if name not in servers or _serves(servers[name], vault):
            return name
    raise ClientConfigError(
        f"the names {plain} and {plain}-{_digest(vault)} belong to other servers; nothing was "
        "written",
        "rename one of them in the file, then run again",
    )


def _command_vault(command: list[str]) -> str:
    return command[command.index("--vault") + 1]


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
    name = server_name(_command_vault(command))
    if client == "codex":
        return _toml_table(name, entry)
    return json.dumps({"mcpServers": {name: entry}}, indent=2, ensure_ascii=False) + "\n"


def merged(client: ClientName, existing: str | None, command: list[str]) -> str:
    """The client's file with this vault's entry set and everything else unchanged."""
    return _merge(client, existing, command)[0]


def write_client_config(client: ClientName, path: Path, command: list[str]) -> WriteReport:
    """Merge this vault's entry into ``path``, keeping a numbered ``.bak`` copy of the previous
    file; another entry of the same vault (under the old name ``vaultctx``) is replaced.

    ``path`` may be a link to a regular file the user owns (it stays a link); any other link is
    refused before the file is read, so a link to ``/dev/zero`` cannot hang us either.
    """
    existing = _read(path)
    with _naming(path):
        updated, name, replaced = _merge(client, existing, command)
    if updated == existing:
        return WriteReport(path, None, changed=False, name=name)
    return WriteReport(path, _write(path, updated), True, name, replaced)


def remove_client_config(client: ClientName, path: Path, vault: Path) -> WriteReport:
    """Take this vault's entries out of ``path`` (a ``.bak`` copy is kept); others stay."""
    existing = _read(path)
    if existing is None:
        return WriteReport(path, None, changed=False)
    with _naming(path):
        updated, names = _remove(client, existing, str(vault))
    if not names:
        return WriteReport(path, None, changed=False)
    return WriteReport(path, _write(path, updated), True, removed=names)


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """The file's contents are at fault: the message says which file."""
    try:
        yield
    except ClientConfigError as exc:
        raise ClientConfigError(f"{path}: {exc.message}", exc.suggestion) from exc


def _read(path: Path) -> str | None:
    return read_settings(path, ClientConfigError, "nothing was written", _FIX_THE_FILE)


def _write(path: Path, text: str) -> Path | None:
    fix = "make the file and its folder writable, or add the snippet by hand"
    return write_settings(path, text, ClientConfigError, "the file was not changed", fix)


def _merge(
    client: ClientName, existing: str | None, command: list[str]
) -> tuple[str, str, tuple[str, ...]]:
    """(the new file, our entry's name, the other entries of this vault it replaces)."""
    entry = server_entry(client, command)
    vault = _command_vault(command)
    if client == "codex":
        return _merged_toml(existing or "", entry, vault)
    return _merged_json(existing, entry, vault)


def _remove(client: ClientName, existing: str, vault: str) -> tuple[str, tuple[str, ...]]:
    if client == "codex":
        return _removed_toml(existing, vault)
    return _removed_json(existing, vault)


def _json_servers(existing: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The file's object and its ``mcpServers`` (added when absent)."""
    unchanged = "nothing was written"
    data = settings_object(existing, ClientConfigError, unchanged, _FIX_THE_FILE, "the file")
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ClientConfigError(
            '"mcpServers" in the file is not an object; nothing was written', _FIX_THE_FILE
        )
    return data, servers


def _dumped(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _merged_json(
    existing: str | None, entry: dict[str, Any], vault: str
) -> tuple[str, str, tuple[str, ...]]:
    data, servers = _json_servers(existing)
    name = _name_in(servers, vault)
    replaced = tuple(old for old in _entries_of(servers, vault) if old != name)
    for old in replaced:
        del servers[old]
    servers[name] = entry
    return _dumped(data), name, replaced


def _removed_json(existing: str, vault: str) -> tuple[str, tuple[str, ...]]:
    data, servers = _json_servers(existing)
    names = tuple(_entries_of(servers, vault))
    for name in names:
        del servers[name]
    return _dumped(data), names


def _toml_servers(existing: str) -> tuple[dict[str, Any], dict[str, Any]]:
    original = _parse_toml(existing)
    servers = original.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ClientConfigError(
            "`mcp_servers` in the file is not a table; nothing was written", _FIX_THE_FILE
        )
    return original, servers


def _merged_toml(
    existing: str, entry: dict[str, Any], vault: str
) -> tuple[str, str, tuple[str, ...]]:
    original, servers = _toml_servers(existing)
    name = _name_in(servers, vault)
    replaced = tuple(old for old in _entries_of(servers, vault) if old != name)
    dropped = {*replaced, name} & servers.keys()
    kept = _without_tables(existing, dropped)
    updated = (kept.rstrip("\n") + "\n\n" if kept.strip() else "") + _toml_table(name, entry)
    others = {key: value for key, value in servers.items() if key not in dropped}
    _check_toml(updated, {**original, "mcp_servers": {**others, name: entry}}, dropped, "replace")
    return updated, name, replaced


def _removed_toml(existing: str, vault: str) -> tuple[str, tuple[str, ...]]:
    original, servers = _toml_servers(existing)
    names = tuple(_entries_of(servers, vault))
    updated = _without_tables(existing, set(names))
    others = {key: value for key, value in servers.items() if key not in names}
    _check_toml(updated, {**original, "mcp_servers": others}, set(names), "remove")
    return updated, names


def _check_toml(updated: str, expected: dict[str, Any], names: set[str], verb: str) -> None:
    """The edited text must parse to exactly the intended data."""
    try:
        result: dict[str, Any] | None = tomllib.loads(updated)
    except tomllib.TOMLDecodeError:
        result = None
    if result is None or _without_empty_servers(result) != _without_empty_servers(expected):
        tables = ", ".join(f"[mcp_servers.{name}]" for name in sorted(names))
        raise ClientConfigError(
            f"{tables} is written in a form vaultctx does not rewrite (an inline table or dotted "
            "keys)",
            f"{verb} it by hand (the snippet is printed without --write)",
        )


def _without_empty_servers(data: dict[str, Any]) -> dict[str, Any]:
    """Removing the last server leaves no ``mcp_servers`` table at all: the same thing."""
    return {key: value for key, value in data.items() if (key, value) != ("mcp_servers", {})}


def _parse_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClientConfigError(
            f"the file is not valid TOML ({exc}); nothing was written", _FIX_THE_FILE
        ) from exc


def _without_tables(text: str, names: set[str]) -> str:
    """``text`` minus the ``[mcp_servers.<name>]`` tables of ``names`` and their sub-tables."""
    kept: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        header = _TOML_HEADER.match(line)
        if header is not None:
            key = _table_key(header["name"])
            inside = len(key) > 1 and key[0] == "mcp_servers" and key[1] in names
        elif _TOML_ARRAY_HEADER.match(line):
            inside = False
        if not inside:
            kept.append(line)
    return "".join(kept)


def _table_key(name: str) -> list[str]:
    return [part.strip().strip("\"'") for part in name.split(".")]


def _toml_table(name: str, entry: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{name}]"]
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
