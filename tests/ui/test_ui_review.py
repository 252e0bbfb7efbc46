"""The Review page in a real chromium: propose link suggestions, tick one, apply it as one
ledger record, undo it from the Changes page; and the page's refusals (Second Brain off, no
model, a POST without or with a foreign Origin) and escaping.

The vault is the example vault plus the Second Brain tests' notes that make a link suggestion
(tests/review/test_review_links.py): the orphan ``O.md`` gets ``a/K.md``, ``b/K.md``, ``c/K.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from tests.brain.conftest import BREAD, KUBE, REPORTS_ON, TIDES
from tests.ui.browser import browser, screenshot_path
from tests.ui.ui_process import UiServer, running_ui
from vaultctx.brain.markers import read_block

SAME = " ".join([KUBE] * 3) + "\n\n[[Hub]]"
NOTES = {
    "vaultctx.toml": REPORTS_ON,
    "O.md": KUBE + "\n",
    "a/K.md": SAME,
    "b/K.md": SAME,
    "c/K.md": SAME,
    "Hub.md": " ".join([TIDES] * 3),
    "Bread.md": BREAD,
}


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-review")
    env = {
        "OPENAI_TEST": KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "XDG_STATE_HOME": str(root / "state"),
    }
    with running_ui(root, notes=NOTES, env=env) as server:
        yield server


@pytest.fixture
def fake(ui: UiServer) -> Iterator[OpenAIFake]:
    """The OpenAI wire fake as the model of the vault's user settings, for this test only."""
    settings = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    with OpenAIFake() as server:
        settings.write_text("[agent]\n" + openai_toml(server), encoding="utf-8")
        try:
            yield server
        finally:
            settings.unlink()


def post(ui: UiServer, path: str, fields: dict[str, str], **headers: str) -> tuple[int, str]:
    sent = {"Content-Type": "application/x-www-form-urlencoded", **headers}
    status, _, text = ui.request(path, method="POST", headers=sent, body=urlencode(fields))
    return status, text


def test_propose_accept_one_apply_then_undo_from_changes(ui: UiServer, tmp_path: Path) -> None:
    orphan = ui.vault / "O.md"
    before = orphan.read_bytes()
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.wait_for_url(f"{ui.base}/search")
        page.goto(f"{ui.base}/review")
        assert page.get_by_label("List").input_value() == "links"
        page.locator("#review-propose").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#review-list")
        titles = page.locator("#review-list .proposal-title").all_inner_texts()
        assert "O.md: link to b/K.md" in titles
        assert page.inner_text("#review-count") == "0 selected"
        wanted = titles.index("O.md: link to b/K.md") + 1
        page.locator(f"#accept-{wanted}").focus()  # keyboard: focus, Space ticks
        page.keyboard.press("Space")
        assert page.locator(f"#accept-{wanted}").is_checked()
        assert page.inner_text("#review-count") == "1 selected"
        assert orphan.read_bytes() == before  # proposing and ticking write nothing
        page.screenshot(path=str(screenshot_path("review")))
        page.locator("#review-apply-button").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#review-result")
        result = page.inner_text("#review-result")
        assert f"Applied 1: {wanted}" in result and "O.md" in result
        text = orphan.read_text(encoding="utf-8")
        assert read_block(text, "related-links") == "## Related notes\n- [[b/K|K]]"
        record = page.inner_text("#review-record")
        page.locator("#review-record").focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{ui.base}/changes#record-{record}")
        newest = page.locator(f"#record-{record}")
        assert newest.locator(".record-label").inner_text().startswith("review links:")
        newest.get_by_role("button", name="Undo this change").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("p.done")
        assert "Undone: review links:" in page.inner_text("p.done")
    assert orphan.read_bytes() == before  # back byte for byte


def test_the_page_is_labelled_and_keyboard_reachable(ui: UiServer, tmp_path: Path) -> None:
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.wait_for_url(f"{ui.base}/search")
        page.goto(f"{ui.base}/review")
        for name in ("List", "Topic", "Inbox folder (empty: the default)"):
            assert page.get_by_label(name).count() == 1
        page.get_by_role("button", name="Propose").click()
        page.wait_for_selector("#review-list")
        snapshot = page.locator("#review-list").aria_snapshot()
        assert 'checkbox "[1] O.md: link to a/K.md"' in snapshot, snapshot
        unlabelled = page.evaluate(
            """Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'))
                 .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
                 .map(e => e.outerHTML)"""
        )
        assert unlabelled == []
        page.locator("#review-flow").focus()
        reached = set()
        for _ in range(40):
            page.keyboard.press("Tab")
            reached.add(page.evaluate("document.activeElement.id"))
        assert {"review-flow", "review-topic", "review-propose", "accept-1"} <= reached
        assert "review-apply-button" in reached


def test_second_brain_off_shows_the_refusal(ui: UiServer) -> None:
    config = ui.vault / "vaultctx.toml"
    saved = config.read_text(encoding="utf-8")
    config.write_text("[second_brain]\nenabled = false\n", encoding="utf-8")
    try:
        status, text = post(ui, "/review/propose", {"flow": "links"}, Origin=ui.base)
    finally:
        config.write_text(saved, encoding="utf-8")
    assert status == 400
    assert 'id="review-problem"' in text and "Second Brain is turned off" in text


def test_a_model_flow_without_a_model_says_so(ui: UiServer) -> None:
    fields = {"flow": "decisions", "topic": "containers"}
    status, text = post(ui, "/review/propose", fields, Origin=ui.base)
    assert status == 400 and "none is configured" in text and "[agent] model" in text
    status, text = post(ui, "/review/propose", {"flow": "contradictions"}, Origin=ui.base)
    assert status == 400 and "the topic is empty" in text


def test_apply_without_or_with_a_foreign_origin_is_refused(ui: UiServer) -> None:
    status, text = post(ui, "/review/propose", {"flow": "links"}, Origin=ui.base)
    assert status == 200 and 'name="saved"' in text
    saved = text.split('name="saved" value="', 1)[1].split('"', 1)[0]
    snapshot = {p: p.read_bytes() for p in ui.vault.rglob("*.md")}
    fields = {"flow": "links", "saved": saved, "accept": "1"}
    status, text = post(ui, "/review/apply", fields)
    assert status == 403 and "Origin" in text
    status, _ = post(ui, "/review/apply", fields, Origin="http://evil.example")
    assert status == 403
    status, _, _ = ui.request(
        "/review/apply",
        method="POST",
        headers={"Origin": ui.base, "Content-Type": "application/x-www-form-urlencoded"},
        body=urlencode(fields),
        cookie=False,  # no token
    )
    assert status == 403
    assert {p: p.read_bytes() for p in ui.vault.rglob("*.md")} == snapshot


def test_a_stale_or_tampered_list_is_refused(ui: UiServer) -> None:
    _, text = post(ui, "/review/propose", {"flow": "links"}, Origin=ui.base)
    saved = text.split('name="saved" value="', 1)[1].split('"', 1)[0]
    snapshot = {p: p.read_bytes() for p in ui.vault.rglob("*.md")}
    fields = {"flow": "links", "saved": "1.0", "accept": "1"}
    status, text = post(ui, "/review/apply", fields, Origin=ui.base)
    assert status == 400 and "no longer the one saved" in text
    fields = {"flow": "links", "saved": saved, "accept": "999"}
    status, text = post(ui, "/review/apply", fields, Origin=ui.base)
    assert status == 400 and "is not on the list" in text
    status, text = post(ui, "/review/apply", {"flow": "links", "saved": saved}, Origin=ui.base)
    assert status == 400 and "no item is selected" in text
    assert {p: p.read_bytes() for p in ui.vault.rglob("*.md")} == snapshot


def test_what_the_page_shows_is_escaped(ui: UiServer) -> None:
    hostile = '"><script>alert(1)</script>'
    fields = {"flow": "decisions", "topic": hostile, "folder": hostile}
    status, text = post(ui, "/review/propose", fields, Origin=ui.base)
    assert status == 400
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)" in text


def test_a_proposal_with_markup_is_rendered_as_text(ui: UiServer) -> None:
    """The template itself, with a proposal a note could make up (titles quote note names)."""
    from starlette.requests import Request

    from vaultctx.api import Vault
    from vaultctx.proposals import Proposal
    from vaultctx.ui.pages import Pages
    from vaultctx.ui.review_page import FLOWS, ReviewForm

    hostile = Proposal(1, "<script>alert(1)</script>", '<img src=x onerror="alert(2)">')
    request = Request({"type": "http", "path": "/review", "query_string": b"", "headers": []})
    with Vault(ui.vault, db=ui.db) as vault:
        response = Pages(vault).page(
            request,
            "review.html",
            form=ReviewForm(),
            flows=FLOWS,
            proposals=[hostile],
            notices=["<b>notice</b>"],
            saved_at="1.0",
            proposed=True,
        )
    html = bytes(response.body).decode("utf-8")
    assert "<script>alert" not in html and "<img" not in html and "<b>notice" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_model_flow_applies_the_list_it_showed(ui: UiServer, fake: OpenAIFake) -> None:
    """Decisions come from the model: Apply writes the saved list, without asking it again."""
    source = "30-resources/databases/SQLite tuning.md"
    answer = [{"decision": "Use WAL mode for the index", "sources": [source], "status": "done"}]
    fake.queue(Answer(json.dumps(answer)))
    fields = {"flow": "decisions", "topic": "SQLite WAL mode"}
    status, text = post(ui, "/review/propose", fields, Origin=ui.base)
    assert status == 200, text
    assert "Use WAL mode for the index [done]" in text
    saved = text.split('name="saved" value="', 1)[1].split('"', 1)[0]
    asked = len(fake.requests_to("/chat/completions"))
    assert asked == 1
    ledger = ui.vault / "Second Brain" / "Decisions.md"
    assert not ledger.exists()  # proposing writes nothing
    fields = {**fields, "saved": saved, "accept": "1"}
    status, text = post(ui, "/review/apply", fields, Origin=ui.base)
    assert status == 200, text
    assert "Applied 1: 1" in text and 'id="review-record"' in text
    assert len(fake.requests_to("/chat/completions")) == asked  # the saved list, not a new one
    written = ledger.read_text(encoding="utf-8")
    assert (
        "Use WAL mode for the index" in written
        and "[[30-resources/databases/SQLite tuning" in written
    )


LOCALISED = [("ko", "검토", "제안 받기"), ("ja", "レビュー", "提案を表示")]


@pytest.mark.parametrize(("language", "heading", "button"), LOCALISED)
def test_the_page_speaks_korean_and_japanese(
    ui: UiServer, language: str, heading: str, button: str
) -> None:
    status, _, text = ui.request("/review", headers={"Accept-Language": language})
    assert status == 200 and f'<html lang="{language}">' in text
    assert f"<h1>{heading}</h1>" in text and f">{button}</button>" in text
