"""The Review page's triage and P.A.R.A lists in a real chromium: one ticked signal triaged
(offline, no model set up) and undone from the Changes page; one P.A.R.A move accepted (through
the OpenAI wire fake) with the link to it rewritten; a hostile signal shown as text, its
``javascript:`` source never a link.

The vault is the example vault (its inbox holds one signal, ``sqlite-vec 0.1.6 release``) plus a
hostile signal and a note that links to another by its path (what a move must rewrite).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake
from tests.ui.browser import browser, screenshot_path
from tests.ui.ui_process import UiServer, running_ui

SIGNAL = "00-inbox/sqlite-vec 0.1.6 release.md"
HOSTILE = "00-inbox/Hostile.md"
HOSTILE_TEXT = """---
title: "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
type: signal
source: "javascript:window.pwned=3"
---
A signal whose title and source came from a hostile feed.
"""
NOTES = {
    HOSTILE: HOSTILE_TEXT,
    "Travel/Trip ideas.md": "# Trip ideas\n\nKalbarri, then north along the coast.\n",
    "Planning.md": "# Planning\n\nSee [[Travel/Trip ideas|the list]] before booking.\n",
}


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    root = tmp_path_factory.mktemp("ui-review-flows")
    env = {
        "OPENAI_TEST": KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "XDG_STATE_HOME": str(root / "state"),
    }
    with running_ui(root, notes=NOTES, env=env) as server:
        yield server


@pytest.fixture
def fake(ui: UiServer) -> Iterator[OpenAIFake]:
    """The OpenAI wire fake as the model of the user settings, for this test only."""
    settings = ui.data_home / "config" / "vaultctx" / "vaultctx.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    with OpenAIFake() as server:
        settings.write_text("[agent]\n" + openai_toml(server), encoding="utf-8")
        try:
            yield server
        finally:
            settings.unlink()


def snapshot(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md")}


def test_triage_one_ticked_signal_then_undo_from_changes(ui: UiServer, tmp_path: Path) -> None:
    before = snapshot(ui.vault)
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.wait_for_url(f"{ui.base}/search")
        page.goto(f"{ui.base}/review")
        page.get_by_label("List").select_option("triage")
        page.locator("#review-propose").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#review-list", timeout=120_000)
        titles = page.locator("#review-list .proposal-title").all_inner_texts()
        assert len(titles) == 2, titles  # the example's signal and the hostile one
        wanted = next(i for i, t in enumerate(titles, 1) if SIGNAL in t)
        assert titles[wanted - 1].startswith("sqlite-vec 0.1.6 release: ")
        detail = page.locator(".proposal").nth(wanted - 1).locator(".proposal-detail")
        assert "scored by heuristic" in detail.inner_text()  # no model set up: offline
        source = page.get_by_role(
            "link", name="Source: https://github.com/asg017/sqlite-vec/releases"
        )
        assert source.get_attribute("href") == "https://github.com/asg017/sqlite-vec/releases"
        snap = page.locator("#review-list").aria_snapshot()
        assert f'checkbox "[{wanted}] sqlite-vec 0.1.6 release:' in snap, snap
        page.locator(f"#accept-{wanted}").focus()
        page.keyboard.press("Space")
        assert page.inner_text("#review-count") == "1 selected"
        assert snapshot(ui.vault) == before  # proposing and ticking write nothing
        page.screenshot(path=str(screenshot_path("review-triage")))
        page.locator("#review-apply-button").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#review-result", timeout=120_000)
        result = page.inner_text("#review-result")
        assert f"Applied 1: {wanted}" in result
        after = snapshot(ui.vault)
        assert after[HOSTILE] == before[HOSTILE]  # not ticked: left new
        changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
        assert changed and changed <= {SIGNAL} | {p for p in after if p.startswith("05-signals/")}
        record = page.inner_text("#review-record")
        page.locator("#review-record").focus()
        page.keyboard.press("Enter")
        page.wait_for_url(f"{ui.base}/changes#record-{record}")
        newest = page.locator(f"#record-{record}")
        assert newest.locator(".record-label").inner_text().startswith("triage 1 signals")
        newest.get_by_role("button", name="Undo this change").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("p.done")
    assert snapshot(ui.vault) == before  # back byte for byte


def test_a_hostile_signal_is_text_and_its_source_no_link(ui: UiServer, tmp_path: Path) -> None:
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.wait_for_url(f"{ui.base}/search")
        page.goto(f"{ui.base}/review?flow=triage")
        page.get_by_role("button", name="Propose").click()
        page.wait_for_selector("#review-list", timeout=120_000)
        listed = page.inner_text("#review-list")
        assert "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>" in listed
        assert "source: javascript:window.pwned=3" in listed  # shown, as text
        assert page.locator("#review-list script, #review-list img").count() == 0
        hrefs = page.evaluate("Array.from(document.querySelectorAll('a')).map(a => a.href)")
        assert not [h for h in hrefs if h.strip().lower().startswith("javascript:")], hrefs
        assert page.evaluate("typeof window.pwned") == "undefined"
        # The new controls: labelled, and the source link reachable with Tab.
        snap = page.locator("#review-list").aria_snapshot()
        assert 'link "Source: https://github.com/asg017/sqlite-vec/releases"' in snap, snap
        unlabelled = page.evaluate(
            """Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'))
                 .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
                 .map(e => e.outerHTML)"""
        )
        assert unlabelled == []
        page.locator("#accept-1").focus()
        reached = set()
        for _ in range(6):
            page.keyboard.press("Tab")
            reached.add(page.evaluate("document.activeElement.className"))
        assert "proposal-link" in reached


def test_a_para_move_is_accepted_and_the_link_to_it_rewritten(
    ui: UiServer, fake: OpenAIFake, tmp_path: Path
) -> None:
    fake.queue(*[Answer("resources")] * 80)  # every note outside the folders: Resources
    before = snapshot(ui.vault)
    with browser(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(ui.login_url)
        page.wait_for_url(f"{ui.base}/search")
        page.goto(f"{ui.base}/review")
        page.get_by_label("List").select_option("para")
        page.get_by_role("button", name="Propose").click()
        page.wait_for_selector("#review-list", timeout=240_000)
        titles = page.locator("#review-list .proposal-title").all_inner_texts()
        wanted = titles.index("move Travel/Trip ideas.md -> 03. Resources/Trip ideas.md") + 1
        page.locator(f"#accept-{wanted}").check()
        assert snapshot(ui.vault) == before
        page.get_by_role("button", name="Apply selected").click()
        page.wait_for_selector("#review-result", timeout=120_000)
        assert f"Applied 1: {wanted}" in page.inner_text("#review-result")
        record = page.inner_text("#review-record")
    after = snapshot(ui.vault)
    assert "Travel/Trip ideas.md" not in after
    assert after["03. Resources/Trip ideas.md"] == before["Travel/Trip ideas.md"]
    assert "[[03. Resources/Trip ideas|the list]]" in after["Planning.md"].decode("utf-8")
    changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
    assert changed == {"Travel/Trip ideas.md", "03. Resources/Trip ideas.md", "Planning.md"}
    status, _, text = ui.request("/changes")
    assert status == 200 and f'id="record-{record}"' in text and "para: 1 notes" in text
