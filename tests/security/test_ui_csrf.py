"""Every change the web UI makes needs the UI's own Origin and the session's CSRF token.

``SameSite=Strict`` does not tell ports apart: a page served from another port of 127.0.0.1 has
the UI's cookie sent with its form posts. So each state-changing route is tried here, against the
real server, with everything such a page (or a careless comparison) could send: another port,
scheme or name in the Origin, ``null``, no Origin, no token, a wrong one, another session's, and
the right one cut short, less its last character or with one more. Each must be refused by the
guard (403) and change nothing; the same request with the UI's own Origin and token must reach
the route, in the header the page's script sends and in the hidden form field.
``test_ui_cross_port_page.py`` does the same with a hostile page in Chromium.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from tests.ui.ui_process import Session, UiServer, running_ui
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.ui.sessions import Sessions

FORM = "application/x-www-form-urlencoded"
# The guard's refusals: its own, and the MCP SDK's Host/Origin check it runs first.
GUARD_REFUSALS = ("vaultctx ui:", "Invalid Origin header")
CREATED = "00-inbox/Made by the agent.md"

# Every route that changes something: all the UI's POSTs (the language switch was a GET that
# set a cookie; it is a POST now, and a GET of it is 405). No GET route changes state.
STATE_CHANGING: dict[str, dict[str, str]] = {
    "/changes/undo": {"record": "RECORD"},  # filled in with the newest record's id
    "/chat/ask": {"chat": "abcdefghijklmnopqrstuvwx", "question": "delete every note"},
    "/chat/confirm": {"id": "gone", "decision": "yes"},
    "/review/propose": {"flow": "links"},
    "/review/apply": {"flow": "links", "saved": "1.0", "accept": "1"},
    "/status/reindex": {},
    "/lang": {"set": "ja", "next": "/changes"},
}


@dataclass(frozen=True)
class Sent:
    """What one attempt carries: its Origin (None: no header), CSRF token and session cookie."""

    origin: str | None
    token: str | None
    cookie: str


Case = Callable[[UiServer, Session, Session], Sent]


def _own(ui: UiServer, mine: Session, token: str | None) -> Sent:
    return Sent(ui.base, token, mine.cookie)


REFUSED: dict[str, Case] = {
    "origin of another port": lambda ui, me, _: Sent(
        f"http://127.0.0.1:{ui.port + 1}", me.csrf, me.cookie
    ),
    "origin of another scheme": lambda ui, me, _: Sent(
        f"https://127.0.0.1:{ui.port}", me.csrf, me.cookie
    ),
    "origin of another name": lambda ui, me, _: Sent(
        f"http://localhost:{ui.port}", me.csrf, me.cookie
    ),
    "origin without the port": lambda ui, me, _: Sent("http://127.0.0.1", me.csrf, me.cookie),
    "null origin": lambda ui, me, _: Sent("null", me.csrf, me.cookie),
    "no origin": lambda ui, me, _: Sent(None, me.csrf, me.cookie),
    "no token": lambda ui, me, _: _own(ui, me, None),
    "empty token": lambda ui, me, _: _own(ui, me, ""),
    "wrong token": lambda ui, me, _: _own(ui, me, secrets.token_urlsafe(32)),
    "token of another session": lambda ui, me, other: _own(ui, me, other.csrf),
    "token prefix": lambda ui, me, _: _own(ui, me, me.csrf[:10]),
    "token less its last character": lambda ui, me, _: _own(ui, me, me.csrf[:-1]),
    "token plus one character": lambda ui, me, _: _own(ui, me, me.csrf + "A"),
    "token twice": lambda ui, me, _: _own(ui, me, me.csrf + me.csrf),
    "the run's token": lambda ui, me, _: _own(ui, me, ui.token),
    "the cookie as token": lambda ui, me, _: _own(ui, me, me.cookie),
}


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    with running_ui(tmp_path_factory.mktemp("ui-csrf")) as server:
        yield server


def send(
    ui: UiServer, path: str, fields: dict[str, str], sent: Sent, carrier: str
) -> tuple[int, str]:
    """One POST, the CSRF token in the ``header`` or the form's ``field`` (absent when None)."""
    headers = {"Content-Type": FORM, "Cookie": f"vaultctx_ui_{ui.port}={sent.cookie}"}
    if sent.origin is not None:
        headers["Origin"] = sent.origin
    body = dict(fields)
    if sent.token is not None:
        if carrier == "header":
            headers["X-CSRF-Token"] = sent.token
        else:
            body["csrf_token"] = sent.token
    status, _, text = ui.request(
        path, method="POST", headers=headers, body=urlencode(body), csrf=False
    )
    return status, text


def agent_note(ui: UiServer) -> str:
    """A note the agent made, as the ledger recorded it: what a forged undo would delete."""
    with Vault(ui.vault, db=ui.db) as vault:
        if not (ui.vault / CREATED).exists():
            vault.create_note(
                CREATED,
                "# Made by the agent\n",
                change=ChangeContext(f"create_note {CREATED}", source="agent"),
            )
        newest = vault.ledger(1)
    return newest[0].id


def vault_state(ui: UiServer) -> dict[str, bytes]:
    return {str(p.relative_to(ui.vault)): p.read_bytes() for p in sorted(ui.vault.rglob("*.md"))}


def job_state(ui: UiServer) -> str:
    status, _, text = ui.request("/status/progress")
    assert status == 200
    return text


@pytest.mark.parametrize("path", list(STATE_CHANGING))
def test_a_change_without_the_own_origin_and_token_is_refused_and_changes_nothing(
    ui: UiServer, path: str
) -> None:
    fields = dict(STATE_CHANGING[path])
    if "record" in fields:
        fields["record"] = agent_note(ui)
    mine, other = ui.open_session(), ui.open_session()
    before, job = vault_state(ui), job_state(ui)
    for name, case in REFUSED.items():
        for carrier in ("header", "field"):
            status, text = send(ui, path, fields, case(ui, mine, other), carrier)
            assert status == 403, f"{name} ({carrier}): {status} {text[:200]}"
            assert text.startswith(GUARD_REFUSALS), f"{name} ({carrier}): {text[:200]}"
    assert vault_state(ui) == before  # the agent's note is still there, nothing else written
    assert job_state(ui) == job  # no re-index started
    # The same request from the UI's own page reaches the route, both ways of carrying the token.
    for carrier in ("header", "field"):
        status, text = send(ui, path, fields, _own(ui, mine, mine.csrf), carrier)
        assert status != 403 and not text.startswith(GUARD_REFUSALS), f"{carrier}: {text[:200]}"


def test_a_forged_undo_deletes_nothing_and_the_pages_own_undo_still_works(ui: UiServer) -> None:
    record = agent_note(ui)
    created = ui.vault / CREATED
    mine, other = ui.open_session(), ui.open_session()
    for sent in (
        Sent(f"http://127.0.0.1:{ui.port + 1}", mine.csrf, mine.cookie),
        Sent(ui.base, other.csrf, mine.cookie),
        Sent(ui.base, mine.csrf[:-1], mine.cookie),
    ):
        assert send(ui, "/changes/undo", {"record": record}, sent, "field")[0] == 403
        assert created.exists()
    status, text = send(ui, "/changes/undo", {"record": record}, _own(ui, mine, mine.csrf), "field")
    assert status == 200 and "Undone" in text
    assert not created.exists()


def test_a_multipart_change_needs_the_header(ui: UiServer) -> None:
    """The guard reads a urlencoded form for its field; any other body (a hostile page's
    multipart or text/plain form) must carry the header, which only a same-origin script sets."""
    mine = ui.open_session()
    boundary = "x" * 16
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
        f'{mine.csrf}\r\n--{boundary}\r\nContent-Disposition: form-data; name="question"\r\n\r\n'
        f"hello\r\n--{boundary}--\r\n"
    )
    headers = {
        "Origin": ui.base,
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Cookie": f"vaultctx_ui_{ui.port}={mine.cookie}",
    }
    status, _, text = ui.request("/chat/ask", method="POST", headers=headers, body=body, csrf=False)
    assert status == 403 and text.startswith("vaultctx ui:")
    plain = {**headers, "Content-Type": "text/plain"}
    status, _, _ = ui.request(
        "/chat/ask", method="POST", headers=plain, body=f"csrf_token={mine.csrf}", csrf=False
    )
    assert status == 403
    headers["X-CSRF-Token"] = mine.csrf
    status, _, text = ui.request("/chat/ask", method="POST", headers=headers, body=body, csrf=False)
    assert status == 200 and "event: " in text


def test_a_session_cookie_differing_only_at_its_end_is_refused(ui: UiServer) -> None:
    mine = ui.open_session()
    session, _, seal = mine.cookie.partition(".")
    for cookie in (
        mine.cookie[:-1],
        mine.cookie + "A",
        f"{session}.{seal[:10]}",
        f"{session}.",
        session,
        f"{session}x.{seal}",  # the seal of another id
        mine.csrf,
    ):
        status, _, _ = ui.request("/search", headers={"Cookie": f"vaultctx_ui_{ui.port}={cookie}"})
        assert status == 403, cookie
    assert (
        ui.request("/search", headers={"Cookie": f"vaultctx_ui_{ui.port}={mine.cookie}"})[0] == 200
    )


def test_each_page_carries_its_sessions_token_in_every_form(ui: UiServer) -> None:
    mine, other = ui.open_session(), ui.open_session()
    assert mine.csrf != other.csrf and mine.cookie != other.cookie
    cookie = {"Cookie": f"vaultctx_ui_{ui.port}={mine.cookie}"}
    for path in ("/changes", "/status", "/review", "/chat", "/search"):
        status, _, page = ui.request(path, headers=cookie)
        assert status == 200
        assert f'<meta name="csrf-token" content="{mine.csrf}">' in page
        forms = page.count('method="post"')
        assert forms >= 1  # the language switch at least
        assert page.count(f'name="csrf_token" value="{mine.csrf}"') == forms, path
        assert other.csrf not in page


def test_a_form_too_large_for_the_guard_is_refused_unread(ui: UiServer) -> None:
    mine = ui.open_session()
    headers = {
        "Origin": ui.base,
        "Content-Type": FORM,
        "Cookie": f"vaultctx_ui_{ui.port}={mine.cookie}",
    }
    body = "record=" + "x" * 1_100_000 + f"&csrf_token={mine.csrf}"
    status, _, _ = ui.request(
        "/changes/undo", method="POST", headers=headers, body=body, csrf=False
    )
    assert status == 413


# The tokens themselves, without a server.


def test_sessions_accept_exactly_their_own_cookie_and_token() -> None:
    sessions = Sessions(secrets.token_urlsafe(32))
    cookie = sessions.new_cookie()
    session = sessions.session_of(cookie)
    assert session is not None and cookie.startswith(session + ".")
    token = sessions.csrf_token(session)
    assert sessions.csrf_matches(session, token)
    for near in (token[:1], token[:10], token[:-1], token + "A", token + token, "", None):
        assert not sessions.csrf_matches(session, near), near
    for near in (cookie[:-1], cookie + "A", cookie.split(".")[0], "." + cookie.split(".")[1]):
        assert sessions.session_of(near) is None, near
    other = sessions.session_of(sessions.new_cookie())
    assert other is not None and other != session
    assert not sessions.csrf_matches(other, token)  # bound to its session
    assert sessions.session_of(f"{session}.{token}") is None  # a CSRF token is no cookie seal
    # A restart (a new token) ends every session.
    assert Sessions(secrets.token_urlsafe(32)).session_of(cookie) is None
