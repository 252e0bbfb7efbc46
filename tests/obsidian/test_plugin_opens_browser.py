"""The built plugin reports the notes the user opens to the real ``vaultctx ui`` it starts (in
the harness, tests/obsidian/harness/): a note stayed on is recorded with its time in the user
state dir, a note only flicked past is not, a file that is no note is not, and with *Report
opened notes* off nothing is."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.obsidian.harness_server import harness_server
from tests.obsidian.plugin_page import NOTE, WAIT_MS, open_harness, plugin_setup
from tests.ui.browser import browser
from vaultctx.brain.reported_opens import load_reported_opens

OTHER = "30-resources/databases/SQLite FTS5.md"
FLICKED = "30-resources/rag/Embeddings primer.md"
THIRD = "30-resources/python/asyncio patterns.md"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with plugin_setup(tmp_path_factory.mktemp("obsidian-opens")) as prepared:
        yield prepared


def recorded(setup: dict[str, Any]) -> dict[str, list[float]]:
    found = list((Path(setup["env"]["XDG_STATE_HOME"]) / "vaultctx" / "brain").glob("*-opens.json"))
    return load_reported_opens(found[0]).opens if found else {}


def wait_for(setup: dict[str, Any], path: str) -> dict[str, list[float]]:
    deadline = time.monotonic() + WAIT_MS / 1000
    while path not in recorded(setup) and time.monotonic() < deadline:
        time.sleep(0.2)
    return recorded(setup)


def test_opened_notes_are_reported_and_nothing_else(setup: dict[str, Any], tmp_path: Path) -> None:
    vault = setup["vault"]
    with harness_server(setup["env"]) as base, browser(tmp_path / "profile") as context:
        page = open_harness(context, base, vault)
        page.wait_for_selector(".status-bar-item:has-text('notes indexed')", timeout=WAIT_MS)
        before = time.time()
        page.evaluate("(p) => window.harness.openFile(p, '')", NOTE)
        opens = wait_for(setup, NOTE)
        assert list(opens) == [NOTE] and before - 1 <= opens[NOTE][0] <= time.time()
        # Flicked past (another note opened at once): only the one stayed on is reported.
        page.evaluate("(p) => window.harness.openFile(p, '')", FLICKED)
        page.evaluate("(p) => window.harness.openFile(p, '')", ".obsidian/app.json")
        page.evaluate("(p) => window.harness.openFile(p, '')", OTHER)
        opens = wait_for(setup, OTHER)
        assert sorted(opens) == sorted([NOTE, OTHER])
        # Switched off in the settings tab: an open stays unreported.
        page.evaluate("window.harness.showSettings()")
        toggle = page.locator(".vertical-tab-content .setting-item", has_text="Report opened notes")
        toggle.locator("input[type=checkbox]").uncheck()
        page.evaluate("(p) => window.harness.openFile(p, '')", THIRD)
        page.wait_for_timeout(5_000)  # well past the 2 s dwell
        assert THIRD not in recorded(setup)
