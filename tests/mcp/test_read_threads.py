"""Reads wait for a worker thread in the event loop, not in threads of their own
(``VaultService.threads_for``): with 20 searches in flight, only as many as the reader handles
run at once; writes and calls during the warm-up keep the SDK's default pool."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from mcp import Client
from tests.mcp.conftest import IndexedVault, wait_for_models
from vaultctx.mcp import server
from vaultctx.mcp.server import VaultService, build_server

pytestmark = pytest.mark.anyio


class Gauge:
    """How many calls are inside ``_respond`` at once, at most."""

    def __init__(self, respond: Callable[..., Any]) -> None:
        self._respond = respond
        self._lock = threading.Lock()
        self.inside = 0
        self.most = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        try:
            time.sleep(0.05)  # each call long enough for the others to pile up
            return self._respond(*args, **kwargs)
        finally:
            with self._lock:
                self.inside -= 1


async def test_twenty_searches_run_on_a_few_threads(
    indexed_vault: IndexedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = VaultService(indexed_vault.handle())
    async with Client(build_server(service.vault, service=service), mode="legacy") as client:
        await wait_for_models(client)
        gauge = Gauge(server._respond)
        monkeypatch.setattr(server, "_respond", gauge)
        answers: list[Any] = []

        async def search(n: int) -> None:
            answers.append(await client.call_tool("obsidian_search", {"query": f"rank {n}"}))

        async with anyio.create_task_group() as group:
            for n in range(20):
                group.start_soon(search, n)
    assert len(answers) == 20 and not any(a.is_error for a in answers)
    assert gauge.most == service.readers.size  # all of them busy, and never more


def test_writes_and_calls_while_warming_take_the_default_pool(
    indexed_vault: IndexedVault,
) -> None:
    service = VaultService(indexed_vault.handle())
    assert service.threads_for(writes=False) is None  # the warm-up has not even started
    assert service.threads_for(writes=True) is None
    service.start_warmup()
    assert service._ready.wait(120)
    limiter = service.threads_for(writes=False)
    assert limiter is not None
    assert limiter.total_tokens == service.readers.size
    assert service.threads_for(writes=True) is None
    service.readers.close()
