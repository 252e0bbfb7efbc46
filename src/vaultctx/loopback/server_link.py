"""How a hook finds and asks a running ``vaultctx serve --http`` for one vault.

The server writes a small state file beside the vault's database (``<db>.server.json``, mode 0600,
like Jupyter's runtime files) naming its URL, process and bearer token, and removes it on exit. A
hook knows the database path from the same configuration, so finding the server costs one file
read; a configured ``VAULTCTX_SERVER_URL`` (with ``VAULTCTX_TOKEN``) overrides the file. Asking
the warm server saves the hook from importing numpy and loading the index on every prompt.

The record belongs to the server that wrote it (its pid and address): a second server for the same
vault neither replaces it while that server runs nor deletes it when it exits itself, so hooks
keep asking the first one.

Only the standard library (and vaultctx's import-free error type) is used here: this module is
on the hook's hot path.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from vaultctx.errors import VaultctxError

STATE_SUFFIX = ".server.json"
HOOK_CONTEXT_PATH = "/vaultctx/hook/context"
OBSIDIAN_PREFIX = "/vaultctx/obsidian/"  # the Obsidian plugin's routes (ui.plugin_api)
CLI_PATH = "/vaultctx/cli"  # cli.forward sends commands here (loopback.cli_endpoint)
SERVER_URL_ENV = "VAULTCTX_SERVER_URL"
TOKEN_ENV = "VAULTCTX_TOKEN"  # also what `serve --token` reads: hooks send the same token
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
_MAX_STATE_BYTES = 64 * 1024  # a real record is ~150 bytes


class ServerUnavailableError(VaultctxError):
    """No server answers at the recorded address: the caller searches in-process instead."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            "start `vaultctx serve --http` (or `vaultctx ui`) for this vault; until then the "
            "work is done in this process",
        )


class ServerRefusedError(VaultctxError):
    """A server answered but refused or failed the request."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            f"check the server's log and that {TOKEN_ENV} holds its token; until then the work "
            "is done in this process",
        )


class ServerInfo(NamedTuple):
    url: str
    token: str | None
    pid: int | None = None


class ServerStateTakenError(VaultctxError):
    """Another running server has recorded itself for this index; its record stays."""

    def __init__(self, holder: ServerInfo) -> None:
        super().__init__(
            f"the server at {holder.url} (process {holder.pid}) is recorded already",
            "stop that server to have hooks and the CLI ask this one",
        )
        self.holder = holder


def state_path(db: Path) -> Path:
    return Path(f"{db}{STATE_SUFFIX}")


def local_url(host: str, port: int) -> str:
    """The address a process on this machine uses: a wildcard bind is reached on loopback."""
    if host in WILDCARD_HOSTS:
        host = "::1" if host == "::" else "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def write_server_state(db: Path, host: str, port: int, token: str | None) -> Path:
    """Record this server for hooks; readable by the user only, as it may hold the token.

    ``ServerStateTakenError`` when another server that still runs has recorded itself. Written
    under a fresh ``mkstemp`` name (created with ``O_EXCL``, mode 0600) and renamed into place
    (``vault.durable``): a rename replaces a link planted at the name instead of writing through it.
    """
    from vaultctx.vault.durable import replace_with_staged  # here: the CLI and hooks only read

    path = state_path(db)
    holder = _read_state_file(path)
    if holder is not None and holder.pid != os.getpid() and _is_running(holder):
        raise ServerStateTakenError(holder)
    state = {"url": local_url(host, port), "pid": os.getpid(), "token": token}
    replace_with_staged(path, json.dumps(state).encode(), 0o600, prefix=path.name, suffix=".tmp")
    return path


def remove_server_state(db: Path, host: str, port: int) -> None:
    """Remove the record this process wrote for ``host:port``; any other record stays."""
    path = state_path(db)
    info = _read_state_file(path)
    if info is not None and info.pid == os.getpid() and info.url == local_url(host, port):
        with contextlib.suppress(OSError):
            path.unlink()


def is_running(info: ServerInfo) -> bool:
    """Whether the recorded server still serves (see ``_is_running``)."""
    return _is_running(info)


def _is_running(info: ServerInfo) -> bool:
    """Whether the recorded server still serves: its process exists and its port accepts a
    connection. A server killed with SIGKILL leaves its record behind, and its pid may since
    belong to another program: either check alone would believe a stale record."""
    import socket

    parts = urlsplit(info.url)
    if info.pid is None or not _process_exists(info.pid) or not parts.hostname:
        return False
    try:
        with socket.create_connection((parts.hostname, parts.port or 80), timeout=2):
            return True
    except OSError:
        return False


def process_exists(pid: int) -> bool:
    """Whether a process with this id exists (another user's counts): a record naming a process
    that is gone is stale without trying its port."""
    return _process_exists(pid)


def _process_exists(pid: int) -> bool:
    if os.name == "nt":  # os.kill would end the process there; the port check decides alone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def find_server(db: Path, environ: dict[str, str] | None = None) -> ServerInfo | None:
    env = os.environ if environ is None else environ
    configured = env.get(SERVER_URL_ENV, "").strip()
    if configured:
        base = configured.rstrip("/").removesuffix("/mcp")  # the MCP URL works too
        return ServerInfo(base, env.get(TOKEN_ENV) or None)
    return _read_state_file(state_path(db))


def _read_state_file(path: Path) -> ServerInfo | None:
    """The record at ``path``, if it is a regular file of this user that names a server.

    The hook sends the user's prompt to the URL it names, so a link, a file someone else put
    there, or one others may write to is ignored rather than believed.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        with os.fdopen(os.open(path, flags), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or not _owned_by_me(info):
                return None
            if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):  # others could have written it
                return None
            data = json.loads(handle.read(_MAX_STATE_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return None
    token = data.get("token")
    pid = data.get("pid")
    return ServerInfo(
        data["url"],
        token if isinstance(token, str) and token else None,
        pid if isinstance(pid, int) else None,
    )


def _owned_by_me(info: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)  # absent on Windows, where the profile is private
    return getuid is None or info.st_uid == getuid()


def post_json(server: ServerInfo, path: str, body: dict[str, Any], timeout: float) -> Any:
    """POST ``body`` as JSON and return the decoded answer.

    Raises ``ServerUnavailableError`` when nothing listens (a stale state file, a stopped server)
    and ``ServerRefusedError`` for any answer other than 200.
    """
    import http.client
    import socket

    parts = urlsplit(server.url)
    if parts.scheme != "http" or not parts.hostname:
        raise ServerRefusedError(
            f"unsupported server URL {server.url!r} (expected http://host:port)"
        )
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if server.token:
        headers["Authorization"] = f"Bearer {server.token}"
    try:
        try:
            connection.request("POST", parts.path.rstrip("/") + path, json.dumps(body), headers)
        except (ConnectionRefusedError, socket.gaierror) as exc:
            raise ServerUnavailableError(f"no server at {server.url} ({exc})") from exc
        response = connection.getresponse()
        payload = response.read()
    except OSError as exc:  # timeouts and resets after connecting: the server is there but stuck
        raise ServerRefusedError(f"{server.url} did not answer ({exc})") from exc
    finally:
        connection.close()
    if response.status != 200:
        raise ServerRefusedError(
            f"{server.url} answered {response.status}: {payload[:200].decode(errors='replace')}"
        )
    return json.loads(payload)
