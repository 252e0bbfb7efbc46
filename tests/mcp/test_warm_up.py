"""When the server warms its models: over stdio only after the ``initialize`` answer is out."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from mcp import Client
from tests.mcp.conftest import IndexedVault
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.query_pieces import QueryPieces
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.mcp.server import WARM_UP_QUERY, VaultService, WarmUpAfterHandshake, build_server
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
        if request.query == WARM_UP_QUERY:
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


def test_a_warm_server_tokenises_plain_questions_with_the_full_tokenizer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The small per-question tokenizer (embed/query_pieces.py) is for a cold CLI search: in a
    server it cost ~1.5 ms under the interpreter lock on every plain-ASCII question. The warm-up
    question is not plain ASCII, so the multilingual model's full tokenizer is loaded once."""
    vault = tmp_path / "vault"
    vault.mkdir()
    notes = {
        "Trains.md": "# Trains\n\nThe night train to Vienna leaves at ten and carries bicycles.\n",
        "김치찌개.md": "# 김치찌개\n\n잘 익은 김치와 돼지고기를 볶고 두부를 넣어 끓인다.\n",
        "주간 회고.md": "# 주간 회고\n\n금요일 오후에 한 주를 돌아보고 바꿀 한 가지를 적는다.\n",
    }
    for name, text in notes.items():
        (vault / name).write_text(text, encoding="utf-8")
    if create_multilingual_embedder("auto") is None:
        pytest.skip("no multilingual engine installed")
    config = Config(vault, tmp_path / "index.db", Settings(quality_engine=""))
    indexer = Vault(config=config)
    indexer.index()  # which loads the full tokenizer: the server is a process of its own
    indexer.close()
    handle = Vault(config=config)
    service = VaultService(handle, warm_korean=False)
    service.start_warmup()
    service.call_soon(lambda _: None)  # the index is open
    assert service._ready.wait(WARM_UP_TIMEOUT_S)
    built: list[object] = []
    small = QueryPieces.tokenizer_for

    def counting(self: QueryPieces, texts: Any) -> Any:
        built.append(texts)
        return small(self, texts)

    monkeypatch.setattr(QueryPieces, "tokenizer_for", counting)
    answer = service.read(lambda v: v.search(SearchRequest("night train with bicycles")))
    assert answer.results and answer.results[0].file_path == "Trains.md"
    assert built == []
    handle.close()
