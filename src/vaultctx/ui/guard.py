"""Who may use the web UI: a per-run token, a session, the page's own Origin and CSRF token.

A local web server is reachable by every web page the user opens (the browser sends the requests)
and by every process on the machine. So every request must carry the token printed with the URL:
in the query string once, which opens a session (``ui.sessions``) kept in an HttpOnly,
SameSite=Strict cookie. SameSite does not tell ports apart, so a page served from another port of
127.0.0.1 gets the cookie sent along too; a change therefore also needs an ``Origin`` equal to the
UI's own (scheme, host and port: the address the browser used to reach this server) and the
session's CSRF token, which only the UI's own pages carry (a hidden form field, or the
``X-CSRF-Token`` header from the page's script). A request without an Origin changes nothing:
browsers send one with every POST. The Host header is checked with the MCP HTTP server's rules and
SDK check (``loopback.policy``): a foreign Host is DNS rebinding (421).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import parse_qs, urlencode

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vaultctx.loopback import policy
from vaultctx.loopback.server_link import CLI_PATH, HOOK_CONTEXT_PATH, OBSIDIAN_PREFIX
from vaultctx.ui.sessions import (
    CSRF_FIELD,
    CSRF_HEADER,
    CSRF_SCOPE_KEY,
    SESSION_SCOPE_KEY,
    Sessions,
    secret_matches,
)

TOKEN_PARAMETER = "token"
FORM_TYPE = "application/x-www-form-urlencoded"
# The guard reads a form's body for its CSRF field; the UI's own forms are a few KB at most.
MAX_FORM_BYTES = 1_000_000
# Endpoints for processes on this machine (loopback.guard.refusal guards them; bearer token only).
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
REFUSED_NO_ORIGIN = (
    "vaultctx ui: a change needs an Origin header; use the UI's own page (browsers send it)\n"
)
REFUSED_ORIGIN = (
    "vaultctx ui: this request comes from another page than the UI's own (its Origin is not "
    "{own}); only the UI's pages may change anything. Use the UI's own address.\n"
)
REFUSED_CSRF = (
    "vaultctx ui: this change carries no valid form token, so it may come from another page. "
    "Reload the UI's page and try again.\n"
)
REFUSED_FORM_SIZE = f"vaultctx ui: a form may have at most {MAX_FORM_BYTES} bytes\n"


def cookie_name(port: int) -> str:
    """Cookies are per host, not per port: two UIs on one machine must not evict each other's."""
    return f"vaultctx_ui_{port}"


def allowed_origins(host: str, extra_hosts: Sequence[str] = ()) -> list[str]:
    """Local origins on any port, as the MCP HTTP server accepts them: the SDK's first sieve
    (on loopback exactly ``policy.allowed_origins()``; the bound address too when ``--host``
    serves beyond this machine). An Origin must then be exactly ``own_origin``."""
    return [
        f"{scheme}://{name}"
        for scheme in ("http", "https")
        for name in policy.allowed_host_headers(host, extra_hosts)
    ]


def own_origin(request: Request) -> str:
    """The origin of the UI's pages as this browser reached them: the scheme and the Host header
    (already checked), which holds the port. A page on another port or scheme has another."""
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


def token_matches(given: str | None, token: str) -> bool:
    """The run's token, compared in constant time (``sessions.secret_matches``)."""
    return secret_matches(given, token)


class UiGuard:
    """ASGI middleware in front of every route, static files included."""

    def __init__(
        self, app: ASGIApp, *, token: str, host: str, port: int, extra_hosts: Sequence[str] = ()
    ) -> None:
        self.app = app
        self.token = token
        self.sessions = Sessions(token)
        self.cookie = cookie_name(port)
        # The SDK checks the Host and, loosely, that any Origin is a local one; _refusal then
        # requires the Origin to be exactly the UI's own.
        self.headers_check = TransportSecurityMiddleware(
            TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=policy.allowed_host_headers(host, extra_hosts),
                allowed_origins=allowed_origins(host, extra_hosts),
            )
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if path in LOCAL_PROCESS_PATHS or path.startswith(OBSIDIAN_PREFIX):  # their own guard
            await self.app(scope, receive, _with_headers(send))
            return
        request = Request(scope)
        response = await self._refusal(request)
        if response is None and request.method not in SAFE_METHODS:
            response, receive = await self._csrf_refusal(request, receive)
        if response is not None:
            await response(scope, receive, _with_headers(send))
            return
        await self.app(scope, receive, _with_headers(send))

    async def _refusal(self, request: Request) -> Response | None:
        refused = await self.headers_check.validate_request(request)
        if refused is not None:
            return refused
        origin = request.headers.get("origin")
        if origin is None and request.method not in SAFE_METHODS:
            return PlainTextResponse(REFUSED_NO_ORIGIN, 403)
        if origin is not None and origin != own_origin(request):
            return PlainTextResponse(REFUSED_ORIGIN.format(own=own_origin(request)), 403)
        given = request.query_params.get(TOKEN_PARAMETER)
        if given is not None:
            if not token_matches(given, self.token):
                return PlainTextResponse(REFUSED_TOKEN, 403)
            return self._open_session(request)
        session = self.sessions.session_of(request.cookies.get(self.cookie))
        if session is None:
            return PlainTextResponse(REFUSED_TOKEN, 403)
        request.scope[SESSION_SCOPE_KEY] = session
        request.scope[CSRF_SCOPE_KEY] = self.sessions.csrf_token(session)
        return None

    async def _csrf_refusal(
        self, request: Request, receive: Receive
    ) -> tuple[Response | None, Receive]:
        """A change must carry its session's CSRF token, in the header or the form's field;
        a form's body is read here and handed on to the route unchanged."""
        given = request.headers.get(CSRF_HEADER)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if given is None and content_type == FORM_TYPE:
            body, receive = await _read_body(receive, MAX_FORM_BYTES)
            if body is None:
                return PlainTextResponse(REFUSED_FORM_SIZE, 413), receive
            fields = parse_qs(body.decode("latin-1"), keep_blank_values=True).get(CSRF_FIELD, [])
            given = fields[0] if len(fields) == 1 else None
        if not self.sessions.csrf_matches(request.scope[SESSION_SCOPE_KEY], given):
            return PlainTextResponse(REFUSED_CSRF, 403), receive
        return None, receive

    def _open_session(self, request: Request) -> Response:
        """The token moves from the address bar (history, screenshots) into a session cookie."""
        params = request.query_params.multi_items()
        kept = [(k, v) for k, v in params if k != TOKEN_PARAMETER]
        target = request.url.path + (f"?{urlencode(kept)}" if kept else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            self.cookie,
            self.sessions.new_cookie(),
            httponly=True,
            samesite="strict",
            path="/",
            secure=False,
        )
        return response


async def _read_body(receive: Receive, limit: int) -> tuple[bytes | None, Receive]:
    """The whole body (None when over ``limit``), and a ``receive`` that replays it."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if len(body) > limit:
            return None, receive
        if not message.get("more_body", False):
            break
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}
        return await receive()

    return bytes(body), replay


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in SECURITY_HEADERS.items():
                if name not in headers:
                    headers[name] = value
        await send(message)

    return sending
