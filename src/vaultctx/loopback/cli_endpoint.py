"""``POST /vaultctx/cli``: a ``vaultctx`` process's command, run by the warm server.

The same guard as the hook endpoint (``loopback.guard``): processes on this machine
only, never a browser, JSON only, the server's bearer token, a bounded body. The command itself
is run by a runner the CLI hands in (``cli.served.run_request``), under the server's vault lock;
the answer is JSON with the command's output and exit code, or ``fallback`` with the reason the
server declines it (the process then runs it itself).

It is served by ``vaultctx serve --http`` and by ``vaultctx ui``; the UI's browser cookie does
not open it, only the bearer token does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vaultctx.loopback.guard import guarded_body

if TYPE_CHECKING:
    from vaultctx.api import Vault

CliRunner = Callable[["Vault", Mapping[str, Any]], dict[str, Any]]
VaultCall = Callable[[Callable[["Vault"], dict[str, Any]]], dict[str, Any]]
MAX_CLI_BODY_BYTES = 256 * 1024


def cli_endpoint(
    call: VaultCall, token: str | None, runner: CliRunner
) -> Callable[[Request], Awaitable[Response]]:
    """The route's handler; ``call`` runs a function against the server's vault, serialised."""

    async def endpoint(request: Request) -> Response:
        body = await guarded_body(request, token, MAX_CLI_BODY_BYTES)
        if isinstance(body, Response):
            return body
        try:
            data = json.loads(body)
        except ValueError as exc:
            return JSONResponse({"error": f"not JSON: {exc}"}, status_code=400)
        if not isinstance(data, dict):
            return JSONResponse({"error": "expected a JSON object"}, status_code=400)
        answer = await anyio.to_thread.run_sync(call, partial(_run, runner, data))
        return JSONResponse(answer)

    return endpoint


def _run(runner: CliRunner, data: Mapping[str, Any], vault: Vault) -> dict[str, Any]:
    return runner(vault, data)
