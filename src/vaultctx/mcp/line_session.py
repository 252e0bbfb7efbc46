"""One MCP session over any byte stream of newline-delimited JSON-RPC: the engine's socket to a
relay, or a socket pair inside the relay when it serves in-process.

The session is the SDK's own stdio transport given these streams instead of the process's
stdin and stdout (``stdio_server`` takes explicit streams), so every message is parsed and
written by the same code as ``vaultctx serve`` over stdio: a tool result is the same bytes
whichever side of the relay produced it.
"""

from __future__ import annotations

import contextlib
import io
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio
from mcp.server.stdio import stdio_server

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


class _Unowned(io.TextIOWrapper):
    """Text over a stream the caller owns and closes (``stdio_server``'s own rule)."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


def serve_lines(server: MCPServer[Any], reader: BinaryIO, writer: BinaryIO) -> None:
    """Serve one client on ``reader``/``writer`` until ``reader`` ends (this thread's own event
    loop, so sessions in other threads run alongside)."""

    async def session() -> None:
        # The encodings and newline handling of ``stdio_server``'s own wrappers of fd 0 and 1.
        stdin = anyio.wrap_file(_Unowned(reader, encoding="utf-8", errors="replace"))  # type: ignore[arg-type]
        stdout = anyio.wrap_file(_Unowned(writer, encoding="utf-8"))  # type: ignore[arg-type]
        async with stdio_server(stdin, stdout) as (read_stream, write_stream):
            lowlevel = server._lowlevel_server  # as MCPServer.run_stdio_async runs it
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    anyio.run(session)


def in_process_socket(vault: Path, db: Path, *, allow_writes: bool) -> socket.socket:
    """The relay's end of a socket pair whose other end is today's stdio server, run in this
    process (``serve`` without the engine); raises ``VaultctxError`` for a vault it cannot open."""
    from vaultctx.api import Vault
    from vaultctx.mcp.server import build_server

    handle = Vault(str(vault), db=str(db))
    server = build_server(handle, warm_up="after handshake", allow_writes=allow_writes)
    ours, theirs = socket.socketpair()

    def run() -> None:
        with theirs, theirs.makefile("rb") as reader, theirs.makefile("wb") as writer:
            serve_lines(server, reader, writer)  # type: ignore[arg-type]

    threading.Thread(target=run, name="vaultctx-mcp-in-process", daemon=True).start()
    return ours
