"""What the browser tests of the Obsidian plugin share: an indexed copy of the example vault with
the OpenAI wire fake in the user's settings, the harness page with the plugin loaded, and
screenshots for docs/obsidian.md (in ``$VAULTCTX_UI_SCREENSHOTS``)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.agent.cli_support import KEY, openai_toml
from tests.agent.fakes import OpenAIFake
from tests.conftest import copy_example_vault
from tests.mcp.conftest import subprocess_env
from tests.ui.browser import SCREENSHOTS
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


@contextmanager
def plugin_setup(root: Path, **extra_env: str) -> Iterator[dict[str, Any]]:
    """An indexed copy of the example vault, the fake in the user's settings, and the
    environment the plugin's `vaultctx` runs in; the server the plugin starts is stopped after."""
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
    env.update(extra_env)
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
            stop_started_server(db)


def stop_started_server(db: Path) -> None:
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
