"""Several vaults from one ``serve --http`` process, each at ``/mcp/<name>`` behind its own token.

Each vault gets the MCP server a single-vault ``serve --http`` builds (``server.build_server``)
with its own ``SharedTokenVerifier`` and its own tool list, so the promises of one vault hold
for each by construction: a token is checked by its vault's server only (a token of another
vault is as wrong as any), and a read-scoped vault's server has no write tools to list or call.
A request reaches a vault's server only by its exact path; anything else under ``/mcp`` is
refused without saying which names exist, unless the caller holds a valid token of some vault.

Memory and time: a vault costs nothing until its first request after ``initialize`` (its index
opens and its vectors load then, ``VaultService`` warm-up). The models are the process's, not
each vault's (``SharedModelVault``): vaults with the same engine settings share one loaded model,
so one more vault costs its index and its vectors held in memory. Each vault's calls take its own
lock, as for one vault; a shared model embeds one text batch at a time (``LockedEmbedder``).
"""

from __future__ import annotations

import hmac
import socket
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from vaultctx.api import Vault
from vaultctx.embed.base import Embedder, Vectors
from vaultctx.mcp.served_vaults import ServedVault
from vaultctx.mcp.server import JSON_RESPONSES, build_server, run_uvicorn, transport_security


class LockedEmbedder:
    """A model several vaults' threads use: one embedding at a time, as a model's caches are
    not shared between threads (each vault's calls have their own lock, as for one vault)."""

    def __init__(self, model: Embedder) -> None:
        self._model = model
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model.name

    @property
    def dimension(self) -> int:
        return self._model.dimension

    @property
    def model_hash(self) -> str:
        return self._model.model_hash

    def embed(self, texts: list[str]) -> Vectors:
        with self._lock:
            return self._model.embed(texts)

    def embed_queries(self, texts: list[str]) -> Vectors:
        """The model's own query embedding where it has one (``embed.base.embed_query``)."""
        with self._lock:
            vectors: Vectors = getattr(self._model, "embed_queries", self._model.embed)(texts)
            return vectors


class SharedModels:
    """The embedding models loaded in this process, by setting and engine name: the first vault
    that needs one loads it, the others get the same object."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: dict[tuple[str, str], LockedEmbedder | None] = {}

    def get(
        self, key: tuple[str, str], load: Callable[[], Embedder | None]
    ) -> LockedEmbedder | None:
        with self._lock:
            if key not in self._loaded:
                model = load()
                self._loaded[key] = None if model is None else LockedEmbedder(model)
            return self._loaded[key]


class SharedModelVault(Vault):
    """A ``Vault`` whose models come from ``SharedModels``; its index is its own."""

    def __init__(self, path: Path, *, db: str | None, models: SharedModels) -> None:
        super().__init__(path, db=db)
        self._models = models

    def embedder(self) -> Embedder:
        shared = self._models.get(("engine", self.config.settings.engine), super().embedder)
        assert shared is not None  # the pass-1 engine always loads or raises
        return shared

    def quality_embedder(self) -> Embedder | None:
        key = ("quality_engine", self.config.settings.quality_engine)
        return self._models.get(key, super().quality_embedder)

    def multilingual_embedder(self) -> Embedder | None:
        key = ("multilingual_engine", self.config.settings.multilingual_engine)
        return self._models.get(key, super().multilingual_embedder)


def open_served_vaults(served: Sequence[ServedVault]) -> list[Vault]:
    """Each vault as a single-vault ``serve`` would open it (``--vault`` and ``--db``): the
    settings are read and checked now, the index is opened on its first request."""
    models = SharedModels()
    return [SharedModelVault(each.vault, db=each.db, models=models) for each in served]


def build_vaults_app(
    served: Sequence[ServedVault],
    vaults: Sequence[Vault],
    *,
    host: str,
    extra_hosts: Sequence[str] = (),
) -> Starlette:
    """One Starlette app: each vault's MCP endpoint at its ``url_path``, with the Host and
    Origin rules of ``serve --http``."""
    security = transport_security(host, extra_hosts)
    apps: list[Starlette] = []
    routes: list[Route] = []
    for each, vault in zip(served, vaults, strict=True):
        server = build_server(
            vault,
            token=each.token,
            log_level="INFO",
            warm_up="after handshake",
            allow_writes=each.scope == "write",
        )
        app = server.streamable_http_app(
            streamable_http_path=each.url_path,
            transport_security=security,
            host=host,
            json_response=JSON_RESPONSES,
        )
        apps.append(app)
        routes.append(Route(each.url_path, endpoint=app))
    unknown = _UnknownVault([(each.name, each.token) for each in served])
    routes += [Route(path, unknown) for path in ("/mcp", "/mcp/{rest:path}")]

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # Each vault's app runs its own session manager; mounted apps' lifespans are not run
        # by Starlette, so they are entered here.
        async with AsyncExitStack() as stack:
            for app in apps:
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    return Starlette(routes=routes, lifespan=lifespan)


class _UnknownVault:
    """A path under /mcp that names no vault: 401 unless the caller holds a valid token (so
    names cannot be probed), else 404 naming the path that token opens. An ASGI app rather than
    an endpoint function, so every method gets the same answer."""

    def __init__(self, tokens: Sequence[tuple[str, str]]) -> None:
        self._tokens = [(name, token.encode()) for name, token in tokens]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        given = request.headers.get("authorization", "")
        bearer = given[7:].encode() if given[:7].lower() == "bearer " else b""
        holder = None
        for name, token in self._tokens:  # every token compared in constant time
            if hmac.compare_digest(bearer, token):
                holder = name
        response = JSONResponse(
            {"error": "invalid_token", "error_description": "Authentication required"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )
        if holder is not None:
            where = f"no vault is served at {request.url.path}; this token opens /mcp/{holder}"
            response = JSONResponse(
                {"error": "not_found", "error_description": where}, status_code=404
            )
        await response(scope, receive, send)


def run_vaults_http(
    served: Sequence[ServedVault],
    *,
    host: str,
    port: int,
    extra_hosts: Sequence[str] = (),
    sockets: list[socket.socket] | None = None,
) -> None:
    """Serve every vault of ``served`` until stopped, with ``serve --http``'s connection
    limits. No server record is written: hooks and CLI forwarding speak to one vault's
    server at ``/mcp``, which this one is not."""
    from vaultctx.loopback.listeners import bind_listeners

    vaults = open_served_vaults(served)
    app = build_vaults_app(served, vaults, host=host, extra_hosts=extra_hosts)
    listening = sockets if sockets is not None else bind_listeners(host, port)
    try:
        run_uvicorn(app, host, port, listening)
    finally:
        for vault in vaults:
            vault.close()
