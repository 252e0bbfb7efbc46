"""The Status page (and the plugin's status) never shows a finished re-index beside the counts
from before it.

The page's script polls only while the page says "running", and reloads for fresh counts when the
run ends. So a page that says "done" must already hold the run's counts: if the run ends while the
page is being made, the page has to say "running" (and the script reloads it). Here the run is
made to end exactly between the page's reading of the counts and the rest of the page.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.ui import plugin_api, reindex
from vaultctx.ui.pages import Pages

NOTES = {f"notes/Note {n}.md": f"# Note {n}\n\nA line about topic {n}.\n" for n in range(4)}


def on_the_page(pages: Pages) -> Callable[[], tuple[str, int]]:
    client = TestClient(Starlette(routes=[Route("/status", pages.status)]))

    def shown() -> tuple[str, int]:
        html = client.get("/status").text
        state = re.search(r'id="reindex" data-state="(\w+)"', html)
        files = re.search(r'<dd id="files">(\d+)</dd>', html)
        assert state and files, html
        return state.group(1), int(files.group(1))

    return shown


def to_the_plugin(pages: Pages) -> Callable[[], tuple[str, int]]:
    api = plugin_api.PluginApi(pages, token=None)

    def shown() -> tuple[str, int]:
        answer = asyncio.run(plugin_api.status(api, {}))
        return answer["job"]["state"], answer["files"]

    return shown


@pytest.mark.parametrize("reader", [on_the_page, to_the_plugin])
def test_a_run_ending_while_the_status_is_made_shows_as_running(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reader: Callable[[Pages], Callable[[], tuple[str, int]]],
) -> None:
    vault_dir = make_vault(tmp_path / "vault", NOTES)
    with Vault(vault_dir, db=tmp_path / "index.db") as first:
        first.index(fast=True)
    (vault_dir / "notes" / "Added.md").write_text("# Added\n\nWritten by hand.\n", "utf-8")

    may_run = threading.Event()

    class HeldVault(Vault):
        """The job's indexer waits until the page has read its counts."""

        def index(self, *args: Any, **kwargs: Any) -> Any:
            assert may_run.wait(60)
            return super().index(*args, **kwargs)

    monkeypatch.setattr(reindex, "Vault", HeldVault)
    vault = Vault(vault_dir, db=tmp_path / "index.db")
    pages = Pages(vault)
    read_counts = vault.status

    def counts_then_the_run_ends() -> Any:
        counts = read_counts()
        may_run.set()
        pages.job.wait(60)
        assert pages.job.snapshot().state == "done"
        return counts

    monkeypatch.setattr(vault, "status", counts_then_the_run_ends)
    shown = reader(pages)
    try:
        assert pages.job.start()
        state, files = shown()
        assert state == "running" or (state == "done" and files == len(NOTES) + 1)
        monkeypatch.setattr(vault, "status", read_counts)
        assert shown() == ("done", len(NOTES) + 1)
    finally:
        may_run.set()
        pages.job.wait(60)
        vault.close()
