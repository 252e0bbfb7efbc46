"""The server the plugin starts outlives Obsidian and is found again, warm, by the next Obsidian;
a server that went away while Obsidian is open is started again by the next action, which then
succeeds (the plugin retries once on the new server). In Chromium, with a real ``vaultctx ui``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.obsidian.harness_server import harness_server
from tests.obsidian.plugin_page import (
    NOTE,
    WAIT_MS,
    open_harness,
    plugin_setup,
    stop_started_server,
)
from tests.ui.browser import browser
from vaultctx.loopback import server_link

if TYPE_CHECKING:
    from playwright.sync_api import Page

INDEXED = ".status-bar-item:has-text('notes indexed')"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with plugin_setup(tmp_path_factory.mktemp("obsidian-reconnect")) as prepared:
        yield prepared


def recorded_pid(db: Path) -> int:
    info = server_link.find_server(db, environ={})
    assert info is not None and info.pid is not None and server_link.process_exists(info.pid)
    return info.pid


def search_finds_the_note(page: Page) -> None:
    page.evaluate("window.harness.runCommand('vaultctx:search')")
    page.locator(".vaultctx-search input").fill("WAL mode readers writer")
    hits = page.locator(".vaultctx-search .vaultctx-hit")
    hits.first.wait_for(timeout=WAIT_MS)
    assert NOTE in hits.evaluate_all("items => items.map(i => i.dataset.path)")


def test_the_server_outlives_obsidian_and_comes_back(setup: dict[str, Any], tmp_path: Path) -> None:
    vault, db = setup["vault"], setup["db"]
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, vault)
        page.wait_for_selector(INDEXED, timeout=WAIT_MS)
        first = recorded_pid(db)
        page.close()  # Obsidian quits: the server stays, warm
        assert server_link.process_exists(first)
        page = open_harness(context, base, vault)
        page.wait_for_selector(INDEXED, timeout=WAIT_MS)
        assert recorded_pid(db) == first  # found again, not started a second time
        search_finds_the_note(page)

        stop_started_server(db)  # gone while Obsidian is open
        assert not server_link.process_exists(first)
        page.locator(".vaultctx-search input").fill("")
        page.wait_for_function("!document.querySelector('.vaultctx-search .vaultctx-hit')")
        search_finds_the_note(page)  # the action itself started another one and succeeded
        assert recorded_pid(db) != first
        assert page.locator(".notice").count() == 0
