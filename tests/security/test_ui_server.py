"""``vaultctx ui``'s promises, against the real server process and a real browser.

Who may ask: the per-run token (query once, then a session in an HttpOnly SameSite=Strict cookie),
local Host headers, the UI's own Origin and the session's CSRF token on every change
(``test_ui_csrf.py`` tries every change against a page of another port). What a note can do:
nothing. Its HTML is escaped, markdown raw HTML is off and javascript:/data:/vbscript: links are
dropped, so a hostile note runs no script in the browser. Which files: only the vault's
(``read_note``'s confinement).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.mcp.conftest import free_port
from tests.ui.browser import browser
from tests.ui.ui_process import UiServer, running_ui, ui_env
from vaultctx.ui.guard import allowed_origins, token_matches

HOSTILE = (
    "# Hostile zebrafish\n\n"
    "<script>window.pwned=1</script>\n\n"
    '<img src=x onerror="window.pwned=2">\n\n'
    "[x](javascript:alert(1)) [y](JAVASCRIPT:window.pwned=3) [v](vbscript:msgbox(1)) "
    "[d](data:text/html;base64,PHNjcmlwdD53aW5kb3cucHduZWQ9NDwvc2NyaXB0Pg==) "
    "[ok](https://example.org/)\n\n"
    "The zebrafish note tries everything.\n"
)
OUTSIDE_TEXT = "outside-the-vault-secret-8c1f"


def _link_out(vault: Path) -> None:
    outside = vault.parent / "outside.md"
    outside.write_text(f"# Outside\n\n{OUTSIDE_TEXT}\n", encoding="utf-8")
    (vault / "Escape.md").symlink_to(outside)


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-security")
    with running_ui(root, {"00-inbox/Hostile.md": HOSTILE}, prepare=_link_out) as server:
        yield server


PAGES = ["/", "/search?q=zebrafish", "/note?path=00-inbox%2FHostile.md", "/changes", "/status"]


@pytest.mark.parametrize("path", [*PAGES, "/static/app.js", "/status/progress"])
def test_a_request_without_the_token_is_refused(ui: UiServer, path: str) -> None:
    status, headers, body = ui.request(path, cookie=False)
    assert status == 403
    assert "zebrafish" not in body and "vaultctx ui printed" not in body
    assert "token" in body
    assert "script-src 'self'" in headers["content-security-policy"]


def test_a_wrong_token_is_refused_in_the_query_and_in_the_cookie(ui: UiServer) -> None:
    wrong = ui.token[:-1] + ("A" if ui.token[-1] != "A" else "B")
    assert ui.request(f"/search?token={wrong}", cookie=False)[0] == 403
    assert ui.request("/search", headers={"Cookie": f"vaultctx_ui_{ui.port}={wrong}"})[0] == 403
    # The cookie holds a session, not the token: the token itself does not pass as one.
    assert ui.request("/search", headers={"Cookie": f"vaultctx_ui_{ui.port}={ui.token}"})[0] == 403
    # A cookie for another port's UI is not this one's.
    assert ui.session is not None
    other_port = {"Cookie": f"vaultctx_ui_1={ui.session.cookie}"}
    assert ui.request("/search", headers=other_port)[0] == 403


def test_a_token_differing_only_at_its_end_is_refused(ui: UiServer) -> None:
    """A comparison that accepts a prefix, or ignores a last or extra character, fails here."""
    for given in (ui.token[:8], ui.token[:-1], ui.token + "x", ui.token + ui.token):
        status, _, body = ui.request(f"/search?q=zebrafish&token={given}", cookie=False)
        assert status == 403, given
        assert "zebrafish" not in body
    assert ui.request(f"/search?token={ui.token}", cookie=False)[0] == 303


def test_the_token_moves_from_the_address_into_a_strict_cookie(ui: UiServer) -> None:
    status, headers, _ = ui.request(f"/search?q=tea&token={ui.token}", cookie=False)
    assert status == 303
    assert headers["location"] == "/search?q=tea"  # the token leaves the address bar
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"vaultctx_ui_{ui.port}=")
    assert ui.token not in cookie  # a session of this run, sealed with the token
    assert "HttpOnly" in cookie
    assert "samesite=strict" in cookie.lower()
    session = cookie.split(";", 1)[0].split("=", 1)[1]
    assert ui.request("/search", headers={"Cookie": f"vaultctx_ui_{ui.port}={session}"})[0] == 200


def test_a_foreign_host_is_refused_even_with_the_token(ui: UiServer) -> None:
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 sends its own Host."""
    for host in ("evil.example", f"evil.example:{ui.port}", "127.0.0.1.evil.example"):
        status, _, body = ui.request("/search?q=zebrafish", headers={"Host": host})
        assert status == 421, host
        assert "zebrafish" not in body


def test_a_foreign_origin_is_refused_even_with_the_token(ui: UiServer) -> None:
    others = (
        "https://evil.example",
        "http://127.0.0.1.evil.example",
        "null",
        f"http://127.0.0.1:{ui.port + 1}",  # another port of this machine: another origin
        f"https://127.0.0.1:{ui.port}",
    )
    for origin in others:
        status, _, body = ui.request("/search?q=zebrafish", headers={"Origin": origin})
        assert status == 403, origin
        assert "zebrafish" not in body
    own = f"http://127.0.0.1:{ui.port}"
    assert ui.request("/search?q=zebrafish", headers={"Origin": own})[0] == 200


def test_a_change_needs_a_local_origin(ui: UiServer) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for headers in ({}, {"Origin": "https://evil.example"}):
        status, _, _ = ui.request(
            "/changes/undo", method="POST", body="record=x", headers={**form, **headers}
        )
        assert status == 403
    chat = "chat=abcdefghijklmnopqrstuvwx&question=hello"
    assert ui.request("/chat/ask", method="POST", body=chat, headers=form)[0] == 403
    status, _, _ = ui.request(
        "/status/reindex", method="POST", body="", headers={"Origin": "https://evil.example"}
    )
    assert status == 403
    assert ui.request("/status/progress")[2].count('"idle"') == 1  # nothing started


def test_every_answer_carries_the_security_headers(ui: UiServer) -> None:
    for path in [*PAGES, "/static/app.css", "/nowhere"]:
        _, headers, _ = ui.request(path)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy
        assert "script-src 'self';" in policy and "unsafe-inline" not in policy
        assert "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"  # never sent to another site


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "../../../../etc/passwd", "/etc/passwd", "Escape.md", "Escape"],
)
def test_a_note_outside_the_vault_is_refused(ui: UiServer, path: str) -> None:
    status, _, body = ui.request(f"/note?path={quote(path, safe='')}")
    assert status == 404
    assert OUTSIDE_TEXT not in body and "root:" not in body
    assert 'class="problem"' in body


def test_the_language_switch_redirects_only_within_the_ui(ui: UiServer) -> None:
    form = {"Origin": ui.base, "Content-Type": "application/x-www-form-urlencoded"}
    for target, expected in (
        ("/changes", "/changes"),
        ("//evil.example/", "/"),
        ("https://evil.example/", "/"),
        ("/\\evil.example", "/"),
    ):
        body = f"set=ja&next={quote(target, safe='')}"
        status, headers, _ = ui.request("/lang", method="POST", body=body, headers=form)
        assert status == 303
        assert headers["location"] == expected
    # A change like any other: a link (GET) cannot flip it.
    assert ui.request("/lang?set=ja&next=/changes")[0] == 405
    # On a form's answer the switch returns to the form's page, not to a POST-only address.
    status, _, page = ui.request("/changes/undo", method="POST", body="record=x", headers=form)
    assert status == 409
    assert '<input type="hidden" name="next" value="/changes">' in page


def test_hostile_markup_comes_back_escaped_in_html(ui: UiServer) -> None:
    for path in ("/note?path=00-inbox%2FHostile.md", "/search?q=zebrafish"):
        status, _, body = ui.request(path)
        assert status == 200
        assert "zebrafish" in body.lower()
        assert "<script>window" not in body
        assert not re.search(r"<img[^>]*onerror", body, re.IGNORECASE)
        assert not re.search(r"""href=["']?\s*(javascript|vbscript|data):""", body, re.I)
        assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in body
    _, _, note = ui.request("/note?path=00-inbox%2FHostile.md")
    assert 'href="https://example.org/"' in note  # ordinary links still work


def test_a_hostile_note_runs_no_script_in_the_browser(ui: UiServer, tmp_path: Path) -> None:
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(ui.login_url)
        page.goto(f"{ui.base}/search?q=zebrafish")
        page.wait_for_selector("a.result-link")
        assert page.evaluate("typeof window.pwned") == "undefined"
        page.click("a.result-link >> nth=0")
        page.wait_for_selector("article.note")
        assert "Hostile zebrafish" in page.inner_text("article.note")
        for anchor in page.locator("article.note a").all():
            href = (anchor.get_attribute("href") or "").strip().lower()
            assert not href.startswith(("javascript:", "vbscript:", "data:")), href
        # Follow every link the note rendered: none runs code.
        for label in ("x", "y", "v", "d"):
            link = page.get_by_role("link", name=label, exact=True)
            assert link.count() == 0
        assert page.locator("article.note script").count() == 0
        assert page.locator("article.note img").count() == 0
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert dialogs == []


def test_allowed_origins_match_the_mcp_rules_on_loopback() -> None:
    from vaultctx.loopback import policy

    assert sorted(allowed_origins("127.0.0.1")) == sorted(policy.allowed_origins())
    assert "http://192.0.2.7:*" in allowed_origins("192.0.2.7")


def test_token_comparison() -> None:
    assert token_matches("abc", "abc")
    assert not token_matches("abd", "abc")
    assert not token_matches("", "abc")
    assert not token_matches(None, "abc")
    assert not token_matches("é", "abc")
    for near in ("a", "ab", "abcd", "abc ", "ABC"):  # a prefix, one less, one more, case
        assert not token_matches(near, "abc"), near


def test_another_address_than_loopback_is_served_only_when_asked_with_a_warning(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n", encoding="utf-8")
    port = free_port()
    db = tmp_path / "index.db"
    command = ["ui", "--vault", str(vault), "--db", str(db), "--host", "0.0.0.0"]
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", *command, "--port", str(port)],
        env=ui_env(tmp_path / "data"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://0.0.0.0:{port}/?token=" in line
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=60)
    assert "warning: --host 0.0.0.0: other machines can reach this UI" in stderr


def test_an_oversized_question_is_refused_before_its_body_is_read(ui: UiServer) -> None:
    headers = {
        "Origin": ui.base,
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": "900000000",
    }
    status, _, body = ui.request("/chat/ask", method="POST", headers=headers)
    assert status == 413
    assert "event: failure" in body and "at most 50 MB" in body
