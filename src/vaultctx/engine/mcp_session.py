"""The engine's side of ``vaultctx serve``: one MCP session per relay connection, on the warm
vault.

The relay (``mcp.relay``) has answered ``initialize`` itself; it replays that request here as
the session's first message and drops this side's answer, so the session is a real MCP session
of the SDK's server from its first message. Every relay on one vault shares one ``VaultService``
whose lock is the vault's engine lock: one copy of the index and models, however many clients,
and never two threads on one SQLite connection. The built servers are kept too (one read-only,
one with the writers), so a relay's first message costs no tool schema building.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from vaultctx.db_location import is_postgres_url
from vaultctx.engine_link import client
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from vaultctx.api import Vault
    from vaultctx.mcp.server import VaultService


class WarmVault(Protocol):
    """``engine.server.WarmVault`` (not imported: the server imports this module)."""

    vault: Vault
    lock: threading.Lock


class Engine(Protocol):
    def vault(self, vault: str, db: str) -> WarmVault: ...


_services: dict[int, tuple[WarmVault, VaultService]] = {}
_servers: dict[tuple[int, bool], MCPServer[Any]] = {}
_lock = threading.Lock()


def serve_mcp(engine: Engine, message: dict[str, Any], reader: BinaryIO, writer: BinaryIO) -> None:
    """Answer ``{"ready": true}`` and serve the session, or ``{"fallback": why}`` when the
    relay must serve in-process (another environment, a vault that does not open)."""
    postgres = is_postgres_url(str(message.get("db")))
    problem = client.settings_problem(message.get("settings_env"), postgres=postgres)
    if problem is None:
        try:
            server = _server(
                engine, str(message.get("vault")), str(message.get("db")), message.get("writes")
            )
        except VaultctxError as exc:
            problem = exc.one_line()
    if problem is not None:
        _send(writer, {"fallback": problem})
        return
    _send(writer, {"ready": True})
    from vaultctx.mcp.line_session import serve_lines

    serve_lines(server, reader, writer)


def _server(engine: Engine, vault: str, db: str, writes: object) -> MCPServer[Any]:
    from vaultctx.mcp.server import VaultService, build_server

    warm = engine.vault(vault, db)
    allow_writes = writes is True
    with _lock:
        key = id(warm)
        if key not in _services:
            # Kiwi is not loaded ahead: its load holds the interpreter lock for seconds (8 s
            # measured under load), and an engine that says no hello for 2 s is replaced by
            # the next client. The first Korean query loads it.
            service = VaultService(warm.vault, lock=warm.lock, warm_korean=False)
            _services[key] = (warm, service)
        service = _services[key][1]
        server = _servers.get((key, allow_writes))
        if server is None:
            server = build_server(warm.vault, allow_writes=allow_writes, service=service)
            _servers[(key, allow_writes)] = server
    return server


def _send(writer: BinaryIO, data: dict[str, Any]) -> None:
    writer.write(json.dumps(data).encode() + b"\n")
    writer.flush()
