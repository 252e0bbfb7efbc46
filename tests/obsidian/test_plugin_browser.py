"""The built plugin in Chromium, inside a stand-in for Obsidian's API (harness/), against a real
``vaultctx ui`` that the plugin itself starts through ``vaultctx obsidian connect``, and the
OpenAI wire fake: an answer streams in with its sources and reads the active note, a citation
opens the right note, a change is confirmed in the modal and undone from the ledger view, and
search answers as you type. Screenshots go to ``$VAULTCTX_UI_SCREENSHOTS`` (docs/images/ has
them)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.conftest import copy_example_vault
from tests.mcp.conftest import subprocess_env
from tests.obsidian.harness_server import harness_server
from tests.ui.browser import SCREENSHOTS, browser
from vaultctx.api import Vault
from vaultctx.loopback import server_link

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

NOTE = "30-resources/databases/SQLite tuning.md"
CITED = "[[30-resources/databases/SQLite tuning#WAL mode]]"
MADE_UP = "[[30-resources/databases/Postgres tuning#Vacuum]]"
WAIT_MS = 180_000  # the plugin starts the server itself on a shared, loaded machine


def shot(page: Page, name: str, only: str = "") -> None:
    """A screenshot for the docs; ``only`` shows that view alone in the sidebar."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    show = "(l, only) => { l.style.display = !only || l.dataset.type === only ? '' : 'none'; }"
    page.locator("#workspace-right .workspace-leaf").evaluate_all(
        f"(leaves, only) => leaves.forEach(l => ({show})(l, only))", only
    )
    page.screenshot(path=str(SCREENSHOTS / f"obsidian-{name}.png"))
    page.locator("#workspace-right .workspace-leaf").evaluate_all(
        "leaves => leaves.forEach(l => { l.style.display = ''; })"
    )


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An indexed copy of the example vault, the fake in the user's settings, and the
    environment the plugin's `vaultctx` runs in; the server the plugin starts is stopped after."""
    root = tmp_path_factory.mktemp("obsidian")
    vault = copy_example_vault(root / "vault")
    db = root / "index.db"
    data = root / "data"
    env = subprocess_env()
    env.update(
        XDG_DATA_HOME=str(data),
        XDG_CONFIG_HOME=str(data / "config"),
        XDG_STATE_HOME=str(data / "state"),
        DB_PATH=str(db),
        OPENAI_TEST=KEY,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(data))
        with Vault(vault, db=db) as handle:
            handle.index(fast=True)
    with OpenAIFake() as fake:
        settings = data / "config" / "vaultctx" / "vaultctx.toml"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(
            "[agent]\n" + openai_toml(fake) + "translate = false\n", encoding="utf-8"
        )
        try:
            yield {"vault": vault, "db": db, "env": env, "fake": fake}
        finally:
            _stop_started_server(db)


def _stop_started_server(db: Path) -> None:
    info = server_link.find_server(db, environ={})
    if info is not None and info.pid is not None and server_link.process_exists(info.pid):
        os.kill(info.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while server_link.process_exists(info.pid) and time.monotonic() < deadline:
            time.sleep(0.2)


def open_harness(
    context: BrowserContext,
    base: str,
    vault: Path,
    language: str = "en",
    data: dict[str, str] | None = None,
) -> Page:
    """The harness page with the plugin loaded; ``data`` is its saved data.json."""
    files = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file())
    config = {"vault": str(vault), "files": files, "language": language, "data": data}
    page = context.new_page()
    page.add_init_script(f"window.__harnessConfig = {json.dumps(config)};")
    page.goto(f"{base}/index.html")
    page.wait_for_selector("body[data-loaded='yes']", timeout=WAIT_MS)
    return page


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
        notice = page.locator(".notice", has_text="pipx install 'vaultctx[agent]'")
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
        shot(page, "settings")
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
