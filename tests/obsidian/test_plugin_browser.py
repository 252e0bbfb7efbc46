"""The built plugin in Chromium, inside a stand-in for Obsidian's API (harness/), against a real
``vaultctx ui`` that the plugin itself starts through ``vaultctx obsidian connect``, and the
OpenAI wire fake: an answer streams in with its sources and reads the active note, a citation
opens the right note, a change is confirmed in the modal and undone from the ledger view, and
search answers as you type. Screenshots go to ``$VAULTCTX_UI_SCREENSHOTS`` (docs/images/ has
them)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.obsidian.harness_server import harness_server
from tests.obsidian.plugin_page import (
    CITED,
    MADE_UP,
    NOTE,
    WAIT_MS,
    open_harness,
    plugin_setup,
    shot,
)
from tests.ui.browser import browser

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with plugin_setup(tmp_path_factory.mktemp("obsidian")) as prepared:
        yield prepared


def test_chat_search_confirm_and_undo(setup: dict[str, Any], tmp_path: Path) -> None:
    vault, fake = setup["vault"], setup["fake"]
    fake.queue(
        Answer(tool_calls=[ToolCall("get_active_note", {})]),
        Answer(
            [
                "WAL mode lets readers ",
                f"work while one writer writes {CITED}. ",
                f"See {MADE_UP}. ",
                '<img src=x onerror="window.pwned=1">',
            ]
        ),
    )
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, vault)
        page.wait_for_selector(".status-bar-item:has-text('notes indexed')", timeout=WAIT_MS)
        page.evaluate("([p, s]) => window.harness.openFile(p, s)", [NOTE, "readers and one writer"])
        page.evaluate("window.harness.runCommand('vaultctx:open-assistant')")
        page.fill(".vaultctx-ask textarea", "what does WAL change?")
        page.keyboard.press("Enter")
        turn = page.locator(".vaultctx-turn").last
        page.wait_for_selector(".vaultctx-turn[data-state='done']", timeout=WAIT_MS)
        answer = turn.locator(".vaultctx-answer")
        assert "WAL mode lets readers work while one writer writes" in answer.inner_text()
        assert page.evaluate("window.pwned") is None
        assert answer.locator("img").count() == 0  # the model's markup stayed text
        assert turn.locator(".vaultctx-source").count() >= 1
        assert turn.locator("a.internal-link.vaultctx-unresolved").count() == 1
        # The active note went with the question: get_active_note read it from the vault.
        tool_result = json.dumps(fake.last("/chat/completions").json, ensure_ascii=False)
        assert "Path: 30-resources/databases/SQLite tuning.md" in tool_result
        assert "readers and one writer" in tool_result  # the selection travelled too
        shot(page, "chat")
        turn.locator("a.internal-link", has_text="SQLite tuning#WAL mode").click()
        opened = page.evaluate("window.harness.opened()")[-1]
        assert opened == {
            "linktext": "30-resources/databases/SQLite tuning#WAL mode",
            "path": NOTE,
            "subpath": "#WAL mode",
        }

        # The citation opened the note: Similar notes follows it.
        page.evaluate("window.harness.runCommand('vaultctx:similar-notes')")
        similar = page.locator(".vaultctx-similar .vaultctx-hit")
        similar.first.wait_for(timeout=WAIT_MS)
        paths = similar.evaluate_all("items => items.map(i => i.dataset.path)")
        assert paths and NOTE not in paths

        created = "00-inbox/From Obsidian.md"
        fake.queue(
            Answer(
                tool_calls=[
                    ToolCall("create_note", {"path": created, "content": "# From Obsidian\n"})
                ]
            ),
            Answer(["Created it."]),
        )
        page.fill(".vaultctx-ask textarea", "make a note")
        page.keyboard.press("Enter")
        modal = page.locator(".modal .vaultctx-confirm")
        modal.wait_for(timeout=WAIT_MS)
        assert "+# From Obsidian" in modal.locator("pre").inner_text()
        assert not (vault / created).exists()
        shot(page, "confirm")
        modal.get_by_role("button", name="Yes", exact=True).click()
        page.wait_for_selector(".vaultctx-turn:nth-child(2)[data-state='done']", timeout=WAIT_MS)
        assert (vault / created).is_file()

        page.evaluate("window.harness.runCommand('vaultctx:show-changes')")
        record = page.locator(".vaultctx-record").first
        record.wait_for(timeout=WAIT_MS)
        assert created in record.inner_text()
        shot(page, "changes", only="vaultctx-ledger")
        record.get_by_role("button", name="Undo this change").click()
        page.wait_for_selector(f".notice:has-text('{created}')", timeout=WAIT_MS)
        assert not (vault / created).exists()

        page.evaluate("window.harness.runCommand('vaultctx:search')")
        page.locator(".vaultctx-search input").fill("WAL mode readers writer")  # one input event
        hits = page.locator(".vaultctx-search .vaultctx-hit")
        hits.first.wait_for(timeout=WAIT_MS)  # the answer to what was typed, after the pause
        paths = hits.evaluate_all("items => items.map(i => i.dataset.path)")
        assert NOTE in paths
        shot(page, "search", only="vaultctx-search")
        before = len(page.evaluate("window.harness.opened()"))
        hits.nth(paths.index(NOTE)).click()
        assert len(page.evaluate("window.harness.opened()")) == before + 1
        assert page.evaluate("window.harness.opened()")[-1]["path"] == NOTE


def test_a_missing_executable_says_how_to_install(setup: dict[str, Any], tmp_path: Path) -> None:
    env = {**setup["env"], "PATH": str(tmp_path)}
    with harness_server(env) as base, browser(tmp_path / "profile") as context:
        saved = {"executable": "vaultctx-nowhere", "effort": ""}
        page = open_harness(context, base, setup["vault"], language="ko", data=saved)
        page.evaluate("window.harness.runCommand('vaultctx:search')")
        page.locator(".vaultctx-search input").type("wal")
        # Each action that cannot start vaultctx says so: the first notice is enough here.
        notice = page.locator(".notice", has_text="pipx install 'vaultctx[agent]'").first
        notice.wait_for(timeout=WAIT_MS)
        assert "vaultctx-nowhere" in notice.inner_text()
        assert "설치" in notice.inner_text()  # in Obsidian's language


def test_the_settings_tab_writes_the_users_own_file(setup: dict[str, Any], tmp_path: Path) -> None:
    vault, fake = setup["vault"], setup["fake"]
    user_file = Path(setup["env"]["XDG_CONFIG_HOME"]) / "vaultctx" / "vaultctx.toml"
    vault_files = {p: p.read_bytes() for p in vault.rglob("*.toml")}
    fake.queue(Answer(["Thought hard."]))
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, vault)
        page.evaluate("window.harness.showSettings()")
        effort = page.locator(".vertical-tab-content .setting-item", has_text="Reasoning effort")
        effort.locator("select").select_option("high")
        deadline = time.monotonic() + 60
        while 'effort = "high"' not in user_file.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert 'effort = "high"' in user_file.read_text()
        assert "[agent]" in user_file.read_text() and "base_url" in user_file.read_text()
        page.evaluate("window.harness.runCommand('vaultctx:open-assistant')")
        page.fill(".vaultctx-ask textarea", "think about it")
        page.keyboard.press("Enter")
        page.wait_for_selector(".vaultctx-turn[data-state='done']", timeout=WAIT_MS)
        assert fake.last("/chat/completions").json["reasoning_effort"] == "high"
        stop_a_slow_answer(page, fake)
    assert {p: p.read_bytes() for p in vault.rglob("*.toml")} == vault_files


def stop_a_slow_answer(page: Page, fake: OpenAIFake) -> None:
    """Stop cancels an answer the model is slow to give; the pane takes a question again."""
    fake.queue(Answer("too late", delay=30))
    asked = len(fake.requests)
    page.fill(".vaultctx-ask textarea", "a slow one")
    page.keyboard.press("Enter")
    deadline = time.monotonic() + 120
    while len(fake.requests) == asked and time.monotonic() < deadline:
        time.sleep(0.1)  # the question has reached the model: now stop it
    page.get_by_role("button", name="Stop", exact=True).click()
    turn = page.locator(".vaultctx-turn").last
    page.wait_for_selector(".vaultctx-turn:last-child[data-state='done']", timeout=WAIT_MS)
    assert "Stopped." in turn.inner_text()
    assert "too late" not in turn.inner_text()
    assert page.get_by_role("button", name="Send", exact=True).is_enabled()
