"""The server side of ``hook context``: ``POST /vaultctx/hook/context`` on ``serve --http`` and
``vaultctx ui``.

A hook process asking the warm server answers in milliseconds instead of loading the index and
the search stack itself. The request is guarded and bounded like every local-process endpoint
(``loopback.guard``); what the server answers with is the hooks' own rule, handed in by the
server that routes it (``hooks.context.hook_excerpts``), so the hook process and the server
answer alike and this package never imports the hooks.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vaultctx.errors import VaultctxError
from vaultctx.loopback.guard import MAX_BODY_BYTES, guarded_body
from vaultctx.loopback.server_link import HOOK_CONTEXT_PATH

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from vaultctx.api import Vault

# An excerpt is (citation, text); the JSON answer lists each as a two-item array.
Excerpts = Sequence[Sequence[str]]
HookAnswer = Callable[["Vault", str], Excerpts]
VaultCall = Callable[[Callable[["Vault"], Excerpts]], Excerpts]


def parse_request(body: bytes) -> str:
    """The text to find context for, from the JSON body; ValueError says what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise ValueError(f"request body over {MAX_BODY_BYTES} bytes")
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise ValueError('expected {"text": "..."}')
    text: str = data["text"]
    return text


def hook_endpoint(
    call: VaultCall, token: str | None, answer: HookAnswer
) -> Callable[[Request], Awaitable[Response]]:
    """The route's handler; ``call`` runs a function against the server's vault, serialised;
    ``answer`` finds the excerpts for a text there."""

    async def endpoint(request: Request) -> Response:
        body = await guarded_body(request, token, MAX_BODY_BYTES)
        if isinstance(body, Response):
            return body
        try:
            text = parse_request(body)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        try:
            excerpts = await anyio.to_thread.run_sync(call, lambda vault: answer(vault, text))
        except VaultctxError as exc:
            return JSONResponse({"error": exc.one_line()}, status_code=503)
        return JSONResponse({"excerpts": [list(excerpt) for excerpt in excerpts]})

    return endpoint


def add_hook_endpoint(
    server: MCPServer[Any], call: VaultCall, token: str | None, answer: HookAnswer
) -> None:
    """Register the endpoint on the MCP server (``vaultctx ui`` routes ``hook_endpoint``)."""
    route = server.custom_route(HOOK_CONTEXT_PATH, methods=["POST"], include_in_schema=False)
    route(hook_endpoint(call, token, answer))
