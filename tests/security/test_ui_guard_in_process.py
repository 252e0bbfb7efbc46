"""The web UI's request guard, driven in this process (no server, no socket).

``test_ui_csrf.py`` and ``test_ui_server.py`` try the guard against the real server in a
subprocess, which mutation testing cannot see. Here the real ``UiGuard`` sits in front of a small
real Starlette app whose routes record that they ran and what body they saw, so every decision the
guard makes (Host, exact Origin, run token, session cookie, CSRF token, form size, the headers it
adds) is pinned by an assertion that a changed constant or branch would break.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from urllib.parse import parse_qs, urlencode

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from vaultctx.ui.guard import UiGuard, allowed_origins, cookie_name, own_origin
from vaultctx.ui.sessions import Sessions, secret_matches

TOKEN = "run-token-0123456789abcdefghijklmnopqrstuvwx"
PORT = 8765
OWN = f"http://127.0.0.1:{PORT}"
COOKIE = f"vaultctx_ui_{PORT}"
FORM = "application/x-www-form-urlencoded"
MAX_FORM_BYTES = 1_000_000

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
}


class Recorder:
    """The routes behind the guard: each call is recorded with the body the route received."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, bytes]] = []
        self.scopes: list[Scope] = []

    async def change(self, request: Request) -> Response:
        body = await request.body()
        self.calls.append((request.method, request.url.path, body))
        self.scopes.append(request.scope)
        return PlainTextResponse("changed")

    async def page(self, request: Request) -> Response:
        self.calls.append((request.method, request.url.path, b""))
        self.scopes.append(request.scope)
        return PlainTextResponse("page", headers={"cache-control": "private"})

    def app(self) -> Starlette:
        methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        return Starlette(
            routes=[
                Route("/", self.page, methods=["GET", "HEAD"]),
                Route("/page", self.page, methods=["GET", "HEAD"]),
                Route("/change", self.change, methods=methods),
                Route("/vaultctx/cli", self.change, methods=["POST"]),
                Route("/vaultctx/hook/context", self.change, methods=["POST"]),
                Route("/vaultctx/clix", self.change, methods=["POST"]),
            ]
        )


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def make_guard(recorder: Recorder, **kwargs: object) -> UiGuard:
    options: dict[str, object] = {"token": TOKEN, "host": "127.0.0.1", "port": PORT}
    options.update(kwargs)
    return UiGuard(recorder.app(), **options)  # type: ignore[arg-type]


def client_for(guard: UiGuard, base: str = OWN) -> TestClient:
    return TestClient(guard, base_url=base, follow_redirects=False)


@pytest.fixture
def client(recorder: Recorder) -> TestClient:
    return client_for(make_guard(recorder))


def open_session(client: TestClient) -> str:
    """Opens a session with the printed token; returns the session's CSRF token."""
    response = client.get(f"/?token={TOKEN}")
    assert response.status_code == 303
    cookie = client.cookies[COOKIE]
    session = Sessions(TOKEN).session_of(cookie)
    assert session is not None
    return Sessions(TOKEN).csrf_token(session)


def post(
    client: TestClient,
    body: bytes | str = b"",
    *,
    origin: str | None = OWN,
    csrf: str | None = None,
    content_type: str | None = FORM,
    path: str = "/change",
    method: str = "POST",
) -> tuple[int, str]:
    headers: dict[str, str] = {}
    if origin is not None:
        headers["Origin"] = origin
    if csrf is not None:
        headers["X-CSRF-Token"] = csrf
    if content_type is not None:
        headers["Content-Type"] = content_type
    content = body.encode() if isinstance(body, str) else body
    response = client.request(method, path, content=content, headers=headers)
    return response.status_code, response.text


def ran(recorder: Recorder) -> bool:
    return any(path == "/change" for _, path, _ in recorder.calls)


# --- Host and Origin -----------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "127.0.0.1"])
def test_local_host_headers_pass(recorder: Recorder, client: TestClient, host: str) -> None:
    open_session(client)
    response = client.get("/page", headers={"Host": host})
    assert response.status_code == 200
    assert recorder.calls[-1][1] == "/page"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.2:8765"])
def test_foreign_host_is_dns_rebinding(recorder: Recorder, client: TestClient, host: str) -> None:
    open_session(client)
    recorder.calls.clear()
    response = client.get("/page", headers={"Host": host})
    assert response.status_code == 421
    assert recorder.calls == []


def test_extra_host_names_and_bound_address_are_admitted(recorder: Recorder) -> None:
    guard = make_guard(recorder, host="0.0.0.0", extra_hosts=("vault.lan",))
    client = client_for(guard, "http://vault.lan:8765")
    csrf = open_session(client)
    assert post(client, f"csrf_token={csrf}", origin="http://vault.lan:8765") == (200, "changed")
    bound = client_for(make_guard(Recorder(), host="192.168.7.5"), "http://192.168.7.5:8765")
    assert bound.get(f"/?token={TOKEN}").status_code == 303
    # Without the extra name the same Host is refused.
    plain = client_for(make_guard(Recorder(), host="0.0.0.0"), "http://vault.lan:8765")
    assert plain.get(f"/?token={TOKEN}").status_code == 421


def test_own_origin_passes(recorder: Recorder, client: TestClient) -> None:
    csrf = open_session(client)
    assert post(client, f"csrf_token={csrf}") == (200, "changed")
    assert ran(recorder)


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:9999",  # another port
        "https://127.0.0.1:8765",  # another scheme
        "http://localhost:8765",  # another host name of this machine
        "http://127.0.0.1",  # no port
        f"{OWN}/",  # not an origin
        "null",
        "http://evil.example",
    ],
)
def test_other_origins_are_refused(recorder: Recorder, client: TestClient, origin: str) -> None:
    csrf = open_session(client)
    status, text = post(client, f"csrf_token={csrf}", origin=origin, csrf=csrf)
    assert status == 403
    assert not ran(recorder)
    if origin.startswith(("http://127.0.0.1", "https://127.0.0.1", "http://localhost")):
        assert f"its Origin is not {OWN})" in text
        assert text.startswith("vaultctx ui: this request comes from another page")


def test_origin_is_compared_with_the_host_the_browser_used(
    recorder: Recorder, client: TestClient
) -> None:
    csrf = open_session(client)
    headers = {"Host": "localhost:8765", "Origin": OWN, "X-CSRF-Token": csrf}
    response = client.post("/change", headers=headers)
    assert response.status_code == 403
    assert "its Origin is not http://localhost:8765)" in response.text
    headers["Origin"] = "http://localhost:8765"
    assert client.post("/change", headers=headers).status_code == 200
    assert ran(recorder)


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_a_change_without_origin_is_refused(
    recorder: Recorder, client: TestClient, method: str
) -> None:
    csrf = open_session(client)
    status, text = post(client, f"csrf_token={csrf}", origin=None, csrf=csrf, method=method)
    assert status == 403
    assert "a change needs an Origin header" in text
    assert not ran(recorder)
    # The same request with the Origin goes through: only the Origin was missing.
    assert post(client, f"csrf_token={csrf}", csrf=csrf, method=method)[0] == 200


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_safe_methods_need_no_origin_nor_csrf(
    recorder: Recorder, client: TestClient, method: str
) -> None:
    open_session(client)
    recorder.calls.clear()
    response = client.request(method, "/change")
    assert response.status_code == 200
    assert recorder.calls == [(method, "/change", b"")]


def test_a_get_with_a_foreign_origin_is_refused(recorder: Recorder, client: TestClient) -> None:
    open_session(client)
    recorder.calls.clear()
    response = client.get("/page", headers={"Origin": "http://127.0.0.1:9999"})
    assert response.status_code == 403
    assert recorder.calls == []
    assert client.get("/page", headers={"Origin": OWN}).status_code == 200


# --- The run token and the session cookie -------------------------------------------------


def test_token_opens_a_session_and_leaves_the_address(client: TestClient) -> None:
    response = client.get(f"/page?a=1&token={TOKEN}&b=x+y")
    assert response.status_code == 303
    assert response.headers["location"] == "/page?a=1&b=x+y"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    lowered = cookie.lower()
    assert "httponly" in lowered
    assert "samesite=strict" in lowered
    assert "path=/" in lowered
    assert "secure" not in lowered.replace("samesite", "")
    assert Sessions(TOKEN).session_of(client.cookies[COOKIE]) is not None
    only_token = client.get(f"/page?token={TOKEN}")
    assert only_token.headers["location"] == "/page"


def test_the_session_then_serves_pages_with_its_csrf_token(
    recorder: Recorder, client: TestClient
) -> None:
    csrf = open_session(client)
    assert client.get("/page").status_code == 200
    scope = recorder.scopes[-1]
    session = Sessions(TOKEN).session_of(client.cookies[COOKIE])
    assert scope["vaultctx.session"] == session
    assert scope["vaultctx.csrf_token"] == csrf


def test_a_token_on_a_post_opens_a_session_but_changes_nothing(
    recorder: Recorder, client: TestClient
) -> None:
    status, _ = post(client, "", path=f"/change?token={TOKEN}")
    assert status == 303
    assert not ran(recorder)


@pytest.mark.parametrize(
    "given",
    ["", "wrong", TOKEN[:-1], TOKEN + "x", TOKEN[:8], TOKEN * 2, TOKEN.upper()],
)
def test_a_wrong_token_is_refused(recorder: Recorder, client: TestClient, given: str) -> None:
    response = client.get("/page", params={"token": given})
    assert response.status_code == 403
    assert "ends with ?token=" in response.text
    assert response.text.startswith("vaultctx ui: this request has no valid token")
    assert COOKIE not in response.cookies
    assert recorder.calls == []


def test_no_cookie_is_refused(recorder: Recorder, client: TestClient) -> None:
    assert client.get("/page").status_code == 403
    status, text = post(client, "csrf_token=x", csrf="x")
    assert status == 403
    assert "ends with ?token=" in text
    assert recorder.calls == []


def _cookies(good: str, session: str) -> list[str]:
    seal = good.partition(".")[2]
    other = Sessions(TOKEN + "-restarted").new_cookie()
    return [
        good[:-1],  # cut short
        good + "A",  # extended
        good[: len(session)],  # no seal
        f"{session}.",  # empty seal
        f".{seal}",  # no session id
        good.replace(".", ""),  # no separator
        f"{session}.{other.partition('.')[2]}",  # another run's seal
        f"{other.partition('.')[0]}.{seal}",  # swapped seal
        f"{session}.{Sessions(TOKEN).csrf_token(session)}",  # the CSRF token as seal
        TOKEN,  # the run token itself
        other,  # a cookie of an earlier run
        good + "." + seal,
    ]


def test_forged_cookies_are_refused(recorder: Recorder) -> None:
    sessions = Sessions(TOKEN)
    good = sessions.new_cookie()
    session = good.partition(".")[0]
    for forged in _cookies(good, session):
        client = client_for(make_guard(recorder))
        client.cookies.set(COOKIE, forged)
        response = client.get("/page")
        assert response.status_code == 403, forged
        assert "ends with ?token=" in response.text
    assert recorder.calls == []
    client = client_for(make_guard(recorder))
    client.cookies.set(COOKIE, good)
    assert client.get("/page").status_code == 200
    # Another port's cookie is not this UI's.
    other_port = client_for(make_guard(recorder))
    other_port.cookies.set(f"vaultctx_ui_{PORT + 1}", good)
    assert other_port.get("/page").status_code == 403


def test_a_restart_ends_every_session(recorder: Recorder) -> None:
    first = client_for(make_guard(recorder))
    csrf = open_session(first)
    restarted = client_for(make_guard(recorder, token=TOKEN + "-new"))
    restarted.cookies.set(COOKIE, first.cookies[COOKIE])
    assert restarted.get("/page").status_code == 403
    status, _ = post(restarted, f"csrf_token={csrf}", csrf=csrf)
    assert status == 403
    assert not ran(recorder)


# --- The CSRF token ------------------------------------------------------------------------


def test_csrf_in_the_header_passes(recorder: Recorder, client: TestClient) -> None:
    csrf = open_session(client)
    status, _ = post(client, b'{"a": 1}', csrf=csrf, content_type="application/json")
    assert status == 200
    assert recorder.calls[-1] == ("POST", "/change", b'{"a": 1}')


def test_csrf_header_wins_over_the_form_field(recorder: Recorder, client: TestClient) -> None:
    csrf = open_session(client)
    body = urlencode({"note": "kept", "csrf_token": "wrong"})
    assert post(client, body, csrf=csrf)[0] == 200
    assert recorder.calls[-1][2] == body.encode()
    assert post(client, f"csrf_token={csrf}", csrf="wrong")[0] == 403


@pytest.mark.parametrize(
    "content_type",
    [FORM, f"{FORM}; charset=utf-8", "Application/X-WWW-Form-URLencoded", f" {FORM} ;x=1"],
)
def test_csrf_in_the_form_passes_and_the_route_sees_the_same_body(
    recorder: Recorder, client: TestClient, content_type: str
) -> None:
    csrf = open_session(client)
    body = urlencode([("title", "a & b"), ("csrf_token", csrf), ("empty", "")])
    assert post(client, body, content_type=content_type) == (200, "changed")
    assert recorder.calls[-1] == ("POST", "/change", body.encode())
    assert parse_qs(recorder.calls[-1][2].decode(), keep_blank_values=True)["title"] == ["a & b"]


def test_a_form_with_bytes_that_are_not_utf8_is_read(
    recorder: Recorder, client: TestClient
) -> None:
    csrf = open_session(client)
    body = b"note=\xff\xfe&csrf_token=" + csrf.encode()
    assert post(client, body)[0] == 200
    assert recorder.calls[-1][2] == body


def _wrong_csrf(csrf: str) -> list[str]:
    other = Sessions(TOKEN)
    other_session = other.session_of(other.new_cookie())
    assert other_session is not None
    return [
        "",
        "wrong",
        other.csrf_token(other_session),  # another session's
        csrf[:10],  # a prefix
        csrf[:-1],  # one char less
        csrf + "A",  # one char more
        csrf + csrf,  # doubled
        TOKEN,  # the run token
    ]


def test_wrong_csrf_tokens_are_refused(recorder: Recorder, client: TestClient) -> None:
    csrf = open_session(client)
    for wrong in _wrong_csrf(csrf):
        status, text = post(client, "", csrf=wrong)
        assert status == 403, wrong
        assert "carries no valid form token" in text
        assert "Reload the UI's page" in text
        status, text = post(client, urlencode({"csrf_token": wrong}))
        assert status == 403, wrong
        assert "carries no valid form token" in text
    assert not ran(recorder)


@pytest.mark.parametrize(
    "body",
    [
        "",  # no field
        "note=x",  # no field
        "csrf_token",  # field without value
        "csrf_token={csrf}&csrf_token={csrf}",  # the right field twice
        "csrf_token=&csrf_token={csrf}",  # a blank field then the right one
        "csrf_token={csrf}&csrf_token=",
    ],
)
def test_missing_or_doubled_form_fields_are_refused(
    recorder: Recorder, client: TestClient, body: str
) -> None:
    csrf = open_session(client)
    status, _ = post(client, body.replace("{csrf}", csrf))
    assert status == 403
    assert not ran(recorder)


@pytest.mark.parametrize(
    "content_type", ["multipart/form-data; boundary=x", "text/plain", "application/json", None]
)
def test_other_bodies_need_the_header(
    recorder: Recorder, client: TestClient, content_type: str | None
) -> None:
    csrf = open_session(client)
    body = f"csrf_token={csrf}"
    if content_type and content_type.startswith("multipart"):
        body = (
            f'--x\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{csrf}\r\n--x--\r\n'
        )
    status, _ = post(client, body, content_type=content_type)
    assert status == 403
    assert not ran(recorder)
    assert post(client, body, content_type=content_type, csrf=csrf)[0] == 200


def test_a_form_over_the_limit_is_refused(recorder: Recorder, client: TestClient) -> None:
    csrf = open_session(client)
    prefix = f"csrf_token={csrf}&pad="
    at_limit = prefix + "a" * (MAX_FORM_BYTES - len(prefix))
    assert len(at_limit) == MAX_FORM_BYTES
    assert post(client, at_limit)[0] == 200
    assert recorder.calls[-1][2] == at_limit.encode()
    recorder.calls.clear()
    status, text = post(client, at_limit + "a")
    assert status == 413
    assert text == "vaultctx ui: a form may have at most 1000000 bytes\n"
    assert not ran(recorder)


# --- The ASGI edges: chunked bodies, other scopes, the local-process paths -----------------


def _drive(
    guard: UiGuard, scope_headers: list[tuple[bytes, bytes]], messages: list[Message]
) -> tuple[int, list[Message]]:
    """Runs one POST /change through the guard with the given ``receive`` messages."""
    queue = list(messages)
    sent: list[Message] = []

    async def receive() -> Message:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/change",
        "raw_path": b"/change",
        "query_string": b"",
        "root_path": "",
        "headers": scope_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", PORT),
    }
    asyncio.run(guard(scope, receive, send))
    return sent[0]["status"], sent


def _session_headers(content_type: bytes = FORM.encode()) -> tuple[list[tuple[bytes, bytes]], str]:
    sessions = Sessions(TOKEN)
    cookie = sessions.new_cookie()
    session = sessions.session_of(cookie)
    assert session is not None
    headers = [
        (b"host", f"127.0.0.1:{PORT}".encode()),
        (b"origin", OWN.encode()),
        (b"cookie", f"{COOKIE}={cookie}".encode()),
        (b"content-type", content_type),
    ]
    return headers, sessions.csrf_token(session)


def test_a_form_in_several_chunks_is_read_whole_and_replayed(recorder: Recorder) -> None:
    headers, csrf = _session_headers()
    body = f"note=first&csrf_token={csrf}&last=z".encode()
    chunks = [body[:7], body[7:20], body[20:]]
    messages: list[Message] = [
        {"type": "http.request", "body": chunk, "more_body": i < 2}
        for i, chunk in enumerate(chunks)
    ]
    status, _ = _drive(make_guard(recorder), headers, messages)
    assert status == 200
    assert recorder.calls == [("POST", "/change", body)]


def test_chunks_that_add_up_over_the_limit_are_refused(recorder: Recorder) -> None:
    headers, csrf = _session_headers()
    half = b"a" * (MAX_FORM_BYTES // 2 + 1)
    messages: list[Message] = [
        {"type": "http.request", "body": f"csrf_token={csrf}&p=".encode(), "more_body": True},
        {"type": "http.request", "body": half, "more_body": True},
        {"type": "http.request", "body": half, "more_body": False},
    ]
    status, _ = _drive(make_guard(recorder), headers, messages)
    assert status == 413
    assert recorder.calls == []


def test_a_client_that_leaves_sends_no_token(recorder: Recorder) -> None:
    headers, _ = _session_headers()
    status, _ = _drive(make_guard(recorder), headers, [{"type": "http.disconnect"}])
    assert status == 403
    assert recorder.calls == []


def test_other_scopes_pass_through(recorder: Recorder) -> None:
    seen: list[str] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["type"])

    guard = UiGuard(inner, token=TOKEN, host="127.0.0.1", port=PORT)

    async def nothing() -> Message:
        return {"type": "lifespan.startup"}

    async def drop(message: Message) -> None:
        pass

    asyncio.run(guard({"type": "lifespan"}, nothing, drop))
    assert seen == ["lifespan"]


@pytest.mark.parametrize("path", ["/vaultctx/cli", "/vaultctx/hook/context"])
def test_local_process_paths_have_their_own_guard(
    recorder: Recorder, client: TestClient, path: str
) -> None:
    response = client.post(path, content=b"x")
    assert response.status_code == 200
    assert recorder.calls == [("POST", path, b"x")]
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    # A neighbouring path is guarded as any other.
    assert client.post("/vaultctx/clix", content=b"x").status_code == 403


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    responses = [client.get("/page"), client.get("/page", headers={"Host": "evil.example"})]
    responses.append(client.get(f"/page?token={TOKEN}"))
    csrf = Sessions(TOKEN).csrf_token(Sessions(TOKEN).session_of(client.cookies[COOKIE]) or "")
    responses.append(client.post("/change", headers={"Origin": OWN, "X-CSRF-Token": csrf}))
    assert [r.status_code for r in responses] == [403, 421, 303, 200]
    for response in responses:
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value, name
    # A route's own value is kept.
    page = client.get("/page")
    assert page.headers["cache-control"] == "private"
    assert page.headers["x-frame-options"] == "DENY"


# --- The pieces ----------------------------------------------------------------------------


def test_cookie_name_and_allowed_origins() -> None:
    assert cookie_name(8765) == "vaultctx_ui_8765"
    assert allowed_origins("127.0.0.1") == [
        f"{scheme}://{name}"
        for scheme in ("http", "https")
        for name in ("127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*")
    ]
    assert "http://vault.lan:*" in allowed_origins("0.0.0.0", ["vault.lan"])


def test_own_origin_is_scheme_and_host() -> None:
    scope: Scope = {
        "type": "http",
        "scheme": "https",
        "path": "/",
        "headers": [(b"host", b"localhost:9000")],
        "query_string": b"",
        "server": ("127.0.0.1", 9000),
    }
    assert own_origin(Request(scope)) == "https://localhost:9000"


@pytest.mark.parametrize(
    ("given", "expected", "result"),
    [
        ("secret", "secret", True),
        (None, "secret", False),
        ("", "secret", False),
        ("", "", False),
        ("secre", "secret", False),
        ("secrets", "secret", False),
        ("secreT", "secret", False),
        ("Secret", "secret", False),
        ("secretsecret", "secret", False),
        ("sécret", "secret", False),
        ("\ud800", "secret", False),  # a lone surrogate is compared, not an exception
        ("é", "é", True),
    ],
)
def test_secret_matches(given: str | None, expected: str, result: bool) -> None:
    assert secret_matches(given, expected) is result


def _seal(token: str, purpose: str, session: str) -> str:
    message = f"vaultctx-ui\0{purpose}\0{session}".encode()
    digest = hmac.new(token.encode("utf-8"), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def test_sessions_seal_ids_under_the_run_token() -> None:
    sessions = Sessions(TOKEN)
    cookie = sessions.new_cookie()
    session, separator, seal = cookie.partition(".")
    assert separator == "."
    assert len(session) == 24
    assert seal == _seal(TOKEN, "session", session)
    assert sessions.session_of(cookie) == session
    assert sessions.csrf_token(session) == _seal(TOKEN, "csrf", session)
    assert sessions.csrf_token(session) != seal


def test_csrf_tokens_differ_per_session_and_are_bound_to_it() -> None:
    sessions = Sessions(TOKEN)
    cookies = {sessions.new_cookie() for _ in range(20)}
    assert len(cookies) == 20
    ids = [sessions.session_of(c) for c in cookies]
    tokens = {sessions.csrf_token(i) for i in ids if i}
    assert len(tokens) == 20
    first, second = ids[0], ids[1]
    assert first and second
    assert sessions.csrf_matches(first, sessions.csrf_token(first))
    assert not sessions.csrf_matches(first, sessions.csrf_token(second))
    assert not sessions.csrf_matches(first, None)
    assert not sessions.csrf_matches(first, "")


def test_a_new_run_token_invalidates_sessions_and_csrf_tokens() -> None:
    old, new = Sessions(TOKEN), Sessions(TOKEN + "2")
    cookie = old.new_cookie()
    session = old.session_of(cookie)
    assert session is not None
    assert new.session_of(cookie) is None
    assert not new.csrf_matches(session, old.csrf_token(session))
    assert Sessions("ключ").session_of(Sessions("ключ").new_cookie()) is not None


def test_sessions_refuse_an_empty_token() -> None:
    with pytest.raises(ValueError, match="must not be empty"):
        Sessions("")
    for cookie in (None, "", ".", "no-separator"):
        assert Sessions(TOKEN).session_of(cookie) is None


def test_the_body_is_replayed_once_then_the_client_is_heard(recorder: Recorder) -> None:
    """The route gets the form as one final message, then what the client sends next."""
    headers, csrf = _session_headers()
    form = f"csrf_token={csrf}".encode()
    heard: list[Message] = []

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        heard.extend([await receive(), await receive()])
        await PlainTextResponse("changed")(scope, receive, send)

    guard = UiGuard(route, token=TOKEN, host="127.0.0.1", port=PORT)
    # The first message has no "body", the second no "more_body": both have their defaults.
    messages: list[Message] = [
        {"type": "http.request", "more_body": True},
        {"type": "http.request", "body": form},
        {"type": "http.request", "body": b"&late=1", "more_body": False},
    ]
    status, _ = _drive(guard, headers, messages)
    assert status == 200
    assert heard[0] == {"type": "http.request", "body": form, "more_body": False}
    assert heard[1] == {"type": "http.request", "body": b"&late=1", "more_body": False}


def test_other_scopes_pass_through_untouched() -> None:
    received: list[Message] = []
    sent: list[Message] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        received.append(await receive())
        await send({"type": "lifespan.startup.complete"})

    async def receive() -> Message:
        return {"type": "lifespan.startup"}

    async def send(message: Message) -> None:
        sent.append(message)

    guard = UiGuard(inner, token=TOKEN, host="127.0.0.1", port=PORT)
    asyncio.run(guard({"type": "lifespan"}, receive, send))
    assert received == [{"type": "lifespan.startup"}]
    assert sent == [{"type": "lifespan.startup.complete"}]


def test_the_empty_token_message() -> None:
    with pytest.raises(ValueError, match=r"^the UI's token must not be empty$"):
        Sessions("")
