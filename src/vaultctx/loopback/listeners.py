"""The listening sockets of ``serve --http``, bound before the server starts.

``serve --http`` binds its address first, so a port already in use is one line of advice and exit
status 2, before the server announces itself or records itself for hooks; uvicorn then serves on
these very sockets, so no other program can take the port in between. Imports the standard library
(and vaultctx's dependency-free error type) only: the CLI binds before it spends a second importing
the MCP SDK.
"""

from __future__ import annotations

import errno
import os
import socket

from vaultctx.errors import VaultctxError

BACKLOG = 2048  # uvicorn's default


class ListenError(VaultctxError, OSError):
    """The address cannot be listened on; the suggestion names the fix."""


def bind_listeners(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for every address ``host`` names (``localhost`` is two), set up as
    asyncio's ``create_server`` would set them up."""
    try:
        addresses = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise ListenError(
            f"cannot listen on --host {host} ({exc.strerror})",
            "give a name or address of this machine, e.g. 127.0.0.1",
        ) from exc
    sockets: list[socket.socket] = []
    try:
        for family, kind, protocol, _, address in dict.fromkeys(addresses):
            sockets.append(_listen(family, kind, protocol, address))
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise ListenError(*_problem(host, port, exc)) from exc
    return sockets


def _listen(
    family: socket.AddressFamily,
    kind: socket.SocketKind,
    protocol: int,
    address: tuple[str, int] | tuple[str, int, int, int] | tuple[int, bytes],
) -> socket.socket:
    sock = socket.socket(family, kind, protocol)
    try:
        if os.name == "posix":  # restart at once after a stop; Windows would share the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:  # the IPv4 address gets a socket of its own
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _problem(host: str, port: int, exc: OSError) -> tuple[str, str]:
    """(what went wrong, the fix) for a failed bind."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} is in use (another `vaultctx serve --http`, or another program)",
            "choose another with --port",
        )
    if exc.errno == errno.EACCES:
        return f"not allowed to listen on port {port}", "choose one above 1023 with --port"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine", "choose another with --host"
    return (
        f"cannot listen on {host}:{port} ({exc.strerror or exc})",
        "check --host and --port",
    )
