"""The server side of ``hook context``: ``POST /vaultctx/hook/context`` on ``serve --http``.

A hook process asking the warm server answers in milliseconds instead of loading the index and
the search stack itself. The MCP SDK does not protect custom routes (no bearer check, no
DNS-rebinding check), so this endpoint checks for itself, and more strictly than ``/mcp``: only
processes on this machine may call it (loopback peer and a loopback ``Host``), never a browser
(any ``Origin`` is refused, and a JSON content type forces a CORS preflight nobody answers), and
with the server's bearer token (every server has one unless started with ``--no-token``). The
body is read as it arrives and refused with 413 the moment it passes ``MAX_BODY_BYTES``, so no
client can make the server hold more than that.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from vaultctx.errors import VaultctxError
from vaultctx.hooks.context import Excerpt, relevant_excerpts
from vaultctx.hooks.server_link import HOOK_CONTEXT_PATH
from vaultctx.mcp.http_policy import LOCAL_NAMES, is_loopback

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest

MAX_BODY_BYTES = 64 * 1024

VaultCall = Callable[[Callable[["Vault"], "list[Excerpt]"]], "list[Excerpt]"]


class BodyTooLargeError(ValueError):
    """The request body is (or says it will be) over ``MAX_BODY_BYTES``."""


def refusal(
    headers: Mapping[str, str], peer: str | None, token: str | None
) -> tuple[int, str] | None:
    """(status, reason) when the request may not use the endpoint, else None."""
    if peer is None or not is_loopback(peer):
        return 403, "the hook endpoint answers processes on this machine only"
    if "origin" in headers:
        return 403, "browsers may not call the hook endpoint"
    host = headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name.lower() not in LOCAL_NAMES:
        return 403, f"unexpected Host header {host!r}"
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return 415, "send the request as application/json"
    if token is not None:
        sent = headers.get("authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return 401, "missing or wrong bearer token"
    return None


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The body, read chunk by chunk; BodyTooLargeError as soon as more than ``limit`` bytes
    are announced or have arrived, without waiting for (or keeping) the rest."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError(f"request body over {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLargeError(f"request body over {limit} bytes")
    return bytes(body)


def parse_request(body: bytes) -> str:
    """The text to find context for, from the JSON body; ValueError says what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise ValueError(f"request body over {MAX_BODY_BYTES} bytes")
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise ValueError('expected {"text": "..."}')
    text: str = data["text"]
    return text


def hook_excerpts(vault: Vault, text: str) -> list[Excerpt]:
    """Hybrid search on the warm server; the relevance rule still demands a keyword hit."""

    def search(request: SearchRequest) -> list[Any]:
        return list(vault.search(request).results)

    return relevant_excerpts(search, text)


async def guarded_body(request: Request, token: str | None, limit: int) -> bytes | Response:
    """The body of a request the endpoint may serve (see ``refusal``), or the answer refusing
    it; shared by every local-process endpoint, so they check and bound requests alike."""
    peer = request.client.host if request.client else None
    refused = refusal(request.headers, peer, token)
    if refused is not None:
        return JSONResponse({"error": refused[1]}, status_code=refused[0])
    try:
        return await read_body(request, limit)
    except BodyTooLargeError as exc:
        # What is left of the body is discarded by uvicorn as it arrives, never kept.
        return JSONResponse({"error": str(exc)}, status_code=413)
    except ClientDisconnect:  # gone, or cut off by the request time limit: nobody to answer
        return Response(status_code=400)


def hook_endpoint(call: VaultCall, token: str | None) -> Callable[[Request], Awaitable[Response]]:
    """The route's handler; ``call`` runs a function against the server's vault, serialised."""

    async def endpoint(request: Request) -> Response:
        body = await guarded_body(request, token, MAX_BODY_BYTES)
        if isinstance(body, Response):
            return body
        try:
            text = parse_request(body)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        try:
            excerpts = await anyio.to_thread.run_sync(call, partial(hook_excerpts, text=text))
        except VaultctxError as exc:
            return JSONResponse({"error": exc.one_line()}, status_code=503)
        return JSONResponse({"excerpts": [list(excerpt) for excerpt in excerpts]})

    return endpoint


def add_hook_endpoint(server: MCPServer[Any], call: VaultCall, token: str | None) -> None:
    """Register the endpoint on the MCP server (``vaultctx ui`` routes ``hook_endpoint``)."""
    route = server.custom_route(HOOK_CONTEXT_PATH, methods=["POST"], include_in_schema=False)
    route(hook_endpoint(call, token))


def run_while_serving(app: Starlette, start: Callable[[], None], stop: Callable[[], None]) -> None:
    """Call ``start`` when the app starts serving and ``stop`` when it shuts down.

    Tied to the app's lifespan rather than to code around ``uvicorn.run``: on SIGTERM uvicorn
    shuts the app down gracefully and then re-raises the signal, so code after ``run`` never
    executes and a state file would be left behind for hooks to trip over.
    """
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        async with inner(application) as state:
            start()
            try:
                yield state
            finally:
                stop()

    app.router.lifespan_context = lifespan
