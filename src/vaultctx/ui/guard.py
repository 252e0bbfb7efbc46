"""Who may use the web UI: a per-run token, local Host and Origin headers, strict headers back.

A local web server is reachable by every web page the user opens (the browser sends the requests)
and by every process on the machine. So every request must carry the token printed with the URL:
in the query string once, after which an HttpOnly, SameSite=Strict cookie carries it (a page on
another site can neither read it nor make the browser send it). Host and Origin are checked with
the MCP HTTP server's own rules and SDK check (``mcp.http_policy``): a foreign Host is DNS
rebinding (421), a foreign Origin another site's page (403). Requests that change something must
come with an Origin, which browsers always send on a POST.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from urllib.parse import urlencode

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultctx.hooks.server_link import CLI_PATH, HOOK_CONTEXT_PATH
from vaultctx.mcp import http_policy

TOKEN_PARAMETER = "token"
# Endpoints for processes on this machine (hooks.endpoint.refusal guards them; bearer token only).
LOCAL_PROCESS_PATHS = frozenset({CLI_PATH, HOOK_CONTEXT_PATH})
SAFE_METHODS = frozenset({"GET", "HEAD"})

# No inline script or style, nothing from elsewhere, no framing: a note that slips past the
# escaping still cannot run code, load a tracker or be dressed up inside another site.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    # Never to other sites. Not "no-referrer": under it Chromium sends `Origin: null` with the
    # page's own form posts, which the Origin check must refuse.
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
}

REFUSED_TOKEN = (
    "vaultctx ui: this request has no valid token. Open the address `vaultctx ui` printed "
    "(it ends with ?token=...); each run prints a new one.\n"
)


def cookie_name(port: int) -> str:
    """Cookies are per host, not per port: two UIs on one machine must not evict each other's."""
    return f"vaultctx_ui_{port}"


def allowed_origins(host: str, extra_hosts: Sequence[str] = ()) -> list[str]:
    """The origins of pages this server serves itself: each accepted Host value, over http or
    https; on loopback exactly ``http_policy.allowed_origins()``, and the bound address too when
    ``--host`` serves beyond this machine."""
    return [
        f"{scheme}://{name}"
        for scheme in ("http", "https")
        for name in http_policy.allowed_host_headers(host, extra_hosts)
    ]


def token_matches(given: str | None, token: str) -> bool:
    """Constant-time comparison: the time a guess takes says nothing about the token."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


class UiGuard:
    """ASGI middleware in front of every route, static files included."""

    def __init__(
        self, app: ASGIApp, *, token: str, host: str, port: int, extra_hosts: Sequence[str] = ()
    ) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie_name(port)
        self.headers_check = TransportSecurityMiddleware(
            TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=http_policy.allowed_host_headers(host, extra_hosts),
                allowed_origins=allowed_origins(host, extra_hosts),
            )
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") in LOCAL_PROCESS_PATHS:  # CLI and hooks: their own, stricter guard
            await self.app(scope, receive, _with_headers(send))
            return
        response = await self._refusal(Request(scope))
        if response is not None:
            await response(scope, receive, _with_headers(send))
            return
        await self.app(scope, receive, _with_headers(send))

    async def _refusal(self, request: Request) -> Response | None:
        refused = await self.headers_check.validate_request(request)
        if refused is not None:
            return refused
        if request.method not in SAFE_METHODS and not request.headers.get("origin"):
            return PlainTextResponse("vaultctx ui: a change needs an Origin header\n", 403)
        given = request.query_params.get(TOKEN_PARAMETER)
        if given is not None:
            if not token_matches(given, self.token):
                return PlainTextResponse(REFUSED_TOKEN, 403)
            return self._store_token(request)
        if not token_matches(request.cookies.get(self.cookie), self.token):
            return PlainTextResponse(REFUSED_TOKEN, 403)
        return None

    def _store_token(self, request: Request) -> Response:
        """The token moves from the address bar (history, screenshots) into a cookie."""
        params = request.query_params.multi_items()
        kept = [(k, v) for k, v in params if k != TOKEN_PARAMETER]
        target = request.url.path + (f"?{urlencode(kept)}" if kept else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            self.cookie, self.token, httponly=True, samesite="strict", path="/", secure=False
        )
        return response


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in SECURITY_HEADERS.items():
                if name not in headers:
                    headers[name] = value
        await send(message)

    return sending
