"""Who may use the endpoints for processes on this machine, and how much they may send.

The MCP SDK does not protect custom routes (no bearer check, no DNS-rebinding check), so the hook
and CLI endpoints check for themselves, and more strictly than ``/mcp``: only processes on this
machine may call them (loopback peer and a loopback ``Host``), never a browser (any ``Origin`` is
refused, and a JSON content type forces a CORS preflight nobody answers), and with the server's
bearer token (every server has one unless started with ``--no-token``). The body is read as it
arrives and refused with 413 the moment it passes the endpoint's limit, so no client can make the
server hold more than that.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from vaultctx.errors import VaultctxError
from vaultctx.loopback.policy import LOCAL_NAMES, is_loopback

MAX_BODY_BYTES = 64 * 1024


class BodyTooLargeError(VaultctxError, ValueError):
    """The request body is (or says it will be) over the endpoint's limit; answered with 413.

    Also a ``ValueError``, as it was before it had a suggestion."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body over {limit} bytes", f"send at most {limit} bytes")


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
        raise BodyTooLargeError(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLargeError(limit)
    return bytes(body)


async def guarded_body(
    request: Request, token: str | None, limit: int, *, same_user_socket: bool = False
) -> bytes | Response:
    """The body of a request the endpoint may serve (see ``refusal``), or the answer refusing
    it; shared by every local-process endpoint, so they check and bound requests alike.

    ``same_user_socket``: the request came over a Unix socket whose server checked, per
    connection, that the peer is this user (the engine's plugin socket); such a socket has no
    peer address, and the kernel's word stands for the loopback check."""
    peer = "127.0.0.1" if same_user_socket else (request.client.host if request.client else None)
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
