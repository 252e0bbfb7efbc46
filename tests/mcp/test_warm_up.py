"""When the server warms its models: over stdio only after the ``initialize`` answer is out."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from mcp import Client
from tests.mcp.conftest import IndexedVault
from vaultctx.api import Vault
from vaultctx.mcp.server import WarmUpAfterHandshake, build_server
from vaultctx.search.request import SearchRequest

WARM_UP_TIMEOUT_S = 60.0


class RecordingService:
    def __init__(self) -> None:
        self.starts = 0

    def start_warmup(self) -> None:
        self.starts += 1


def test_the_warm_up_waits_until_the_handshake_is_answered() -> None:
    service = RecordingService()
    middleware = WarmUpAfterHandshake(service)  # type: ignore[arg-type]
    starts_while_handled: dict[str, int] = {}

    async def session() -> None:
        for method in ("initialize", "notifications/initialized", "tools/list"):

            async def handler(ctx: Any, method: str = method) -> None:
                starts_while_handled[method] = service.starts

            await middleware(SimpleNamespace(method=method), handler)  # type: ignore[arg-type]

    anyio.run(session)
    assert starts_while_handled == {
        "initialize": 0,
        "notifications/initialized": 1,
        "tools/list": 2,
    }


def warm_ups_of(handle: Vault, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when the server runs its warm-up search (the query it uses for nothing else)."""
    warmed = threading.Event()
    search = handle.search

    def recording(request: SearchRequest) -> Any:
        if request.query == "warm up":
            warmed.set()
        return search(request)

    monkeypatch.setattr(handle, "search", recording)
    return warmed


def test_a_stdio_style_server_warms_up_after_the_handshake_without_any_call(
    indexed_vault: IndexedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle = indexed_vault.handle()
    warmed = warm_ups_of(handle, monkeypatch)
    server = build_server(handle, warm_up="after handshake")

    async def session() -> None:
        assert not warmed.is_set()
        async with Client(server, mode="legacy"):
            with anyio.fail_after(WARM_UP_TIMEOUT_S):
                while not warmed.is_set():
                    await anyio.sleep(0.05)

    anyio.run(session)
    assert warmed.is_set()
