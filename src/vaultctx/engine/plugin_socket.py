"""The Obsidian plugin's routes served by the engine: HTTP on a Unix socket of its own,
``obsidian.sock`` beside the engine's socket in its private (0700) runtime folder.

The handlers are ``ui.plugin_api``'s, the ones ``vaultctx ui`` and ``serve --http`` serve: each
vault a plugin connects to (``vaultctx obsidian connect`` asks the engine) gets a ``PluginApi``
mounted at ``/vaults/<key>``, over ``Pages`` of a ``Vault`` of its own, as ``serve --http`` does,
so a plugin's search never waits on a CLI command's lock. There is no token: every connection's
peer uid is asked of the kernel (``SO_PEERCRED``, ``LOCAL_PEERCRED``) before a byte of it is
read, and a peer that is not this user is closed on; the routes' other rules stay (no web
Origin, a JSON body, their size limits). uvicorn serves the socket in a thread, started by the
first plugin that connects, so an engine only the CLI uses never imports it. Every request is
the engine's activity: an Obsidian in use keeps it from its idle exit.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount

from vaultctx.engine_link import peer
from vaultctx.engine_link import runtime_dir as runtime
from vaultctx.errors import VaultctxError
from vaultctx.loopback.http_timeouts import IDLE_TIMEOUT_SECONDS, TimedH11Protocol

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp, Receive, Scope, Send

    from vaultctx.ui.pages import Pages

log = logging.getLogger("vaultctx.engine")
VAULTS_PREFIX = "/vaults/"
START_SECONDS = 30.0
STOP_SECONDS = 10.0
# Not found: a vault this engine has not opened (it restarted since `obsidian connect`), or an
# action it does not know. The plugin connects again on this status, and retries once.
UNKNOWN_STATUS = 410


class Activity(Protocol):
    def begin(self) -> None: ...
    def end(self) -> None: ...


def vault_key(vault: str, db: str) -> str:
    """The vault's place in the socket's paths: stable for (vault, db), names neither."""
    return hashlib.sha256(f"{vault}\0{db}".encode()).hexdigest()[:16]


def same_user(connection: Any) -> bool:
    """Whether the kernel says the peer of ``connection`` is this user; any doubt is a no."""
    try:
        uid = peer.peer_uid(cast("socket.socket", connection))
    except VaultctxError as exc:
        log.warning("plugin socket: refused a connection: %s", exc.one_line())
        return False
    if uid != os.getuid():
        log.warning("plugin socket: refused a connection from another user (uid %d)", uid)
        return False
    return True


class SameUserH11Protocol(TimedH11Protocol):
    """uvicorn's HTTP protocol (with the loopback servers' time limits) that closes a connection
    whose peer is not this user as it is accepted, before any of its bytes is read."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not same_user(transport.get_extra_info("socket")):
            transport.abort()


class _CountedActivity:
    """Each HTTP request is engine activity (``Engine.begin``/``end``)."""

    def __init__(self, app: ASGIApp, activity: Activity) -> None:
        self.app = app
        self.activity = activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.activity.begin()
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.end()


def _unknown(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        {
            "error": "the engine has not opened this vault for the plugin",
            "suggestion": "connect again (`vaultctx obsidian connect`)",
        },
        status_code=UNKNOWN_STATUS,
    )


class PluginSocket:
    """The socket and the vaults mounted on it."""

    def __init__(self, folder: Path, activity: Activity) -> None:
        self.path = runtime.socket_path(folder, runtime.PLUGIN_SOCKET_NAME)
        self.activity = activity
        self.app = Starlette(routes=[], exception_handlers={404: _unknown, 405: _unknown})
        self._pages: dict[str, Pages] = {}
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def open(self, vault: str, db: str) -> str:
        """The base path of this vault's routes, mounted on first use (the socket started
        with the first vault); a vault that cannot be opened raises its own error."""
        key = vault_key(vault, db)
        with self._lock:
            if key not in self._pages:
                from vaultctx.api import Vault
                from vaultctx.ui.pages import Pages
                from vaultctx.ui.plugin_api import PluginApi

                pages = Pages(Vault(vault, db=db))
                routes = PluginApi(pages, None, same_user_socket=True).routes()
                self.app.router.routes.append(Mount(VAULTS_PREFIX + key, routes=routes))
                self._pages[key] = pages
                # The plugin's first search should not pay for opening the index and models.
                warm = threading.Thread(target=pages.warm_up, name="vaultctx-plugin", daemon=True)
                warm.start()
            self._start()
        return VAULTS_PREFIX + key

    def _start(self) -> None:
        if self._thread is not None:
            return
        import uvicorn

        self.path.unlink(missing_ok=True)  # the engine holds the lock: one left here is stale
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(old_umask)
        listener.listen(64)
        config = uvicorn.Config(
            _CountedActivity(self.app, self.activity),
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            http=SameUserH11Protocol,
            timeout_keep_alive=IDLE_TIMEOUT_SECONDS,
        )
        server = self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [listener]}, name="vaultctx-plugin", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not server.started:
            raise VaultctxError(
                f"the engine's plugin socket {self.path} did not start",
                "see the engine's log (`vaultctx engine status`); the plugin uses `vaultctx ui`",
            )
        log.info("plugin socket listening at %s", self.path)

    def close(self) -> None:
        with self._lock:
            if self._server is not None and self._thread is not None:
                self._server.should_exit = True
                self._thread.join(STOP_SECONDS)
            self.path.unlink(missing_ok=True)
            pages, self._pages = list(self._pages.values()), {}
        for one in pages:
            one.vault.close()
