"""A server still loading its models answers at once: searches by keywords, with a notice saying
so, and notes read and listed; Kiwi is loaded only for an index that holds Korean."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import CallToolResult

from mcp import Client
from tests.mcp.conftest import (
    LOADING_NOTICE,
    WARM_UP_TIMEOUT_S,
    IndexedVault,
    subprocess_env,
    wait_for_models,
)
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server

ASYNCIO_NOTE = "30-resources/python/asyncio patterns.md"


def gated(handle: Vault, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold ``handle``'s embedding engines back until the returned event is set: the server's
    warm-up then stays in progress for as long as the test wants."""
    gate = threading.Event()
    for name in ("embedder", "quality_embedder"):
        load = getattr(handle, name)

        def waiting(load: Any = load) -> Any:
            assert gate.wait(WARM_UP_TIMEOUT_S), "the test never opened the gate"
            return load()

        monkeypatch.setattr(handle, name, waiting)
    return gate


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def test_searches_before_the_models_load_are_answered_by_keywords_with_a_notice(
    indexed_vault: IndexedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle = indexed_vault.handle()
    gate = gated(handle, monkeypatch)

    async def session() -> None:
        async with Client(build_server(handle), mode="legacy") as client:
            try:
                early = structured(
                    await client.call_tool("obsidian_search", {"query": "asyncio timeout"})
                )
                assert early["mode"] == "bm25"
                assert any(LOADING_NOTICE in notice for notice in early["notices"])
                assert ASYNCIO_NOTE in [hit["path"] for hit in early["results"]]
                text = (await client.call_tool("obsidian_search", {"query": "asyncio"})).content
                assert LOADING_NOTICE in text[0].text  # type: ignore[union-attr]
                # Reading and listing need no model either.
                note = await client.call_tool("obsidian_read_note", {"file_path": ASYNCIO_NOTE})
                assert "asyncio" in structured(note)["text"].lower()
                listed = structured(await client.call_tool("obsidian_list_notes", {"limit": 3}))
                assert len(listed["notes"]) == 3
                assert not gate.is_set()  # all of it answered while the models were held back
            finally:
                gate.set()
            await wait_for_models(client)
            warm = structured(
                await client.call_tool("obsidian_search", {"query": "asyncio timeout"})
            )
            assert warm["mode"] == "hybrid"
            assert not any(LOADING_NOTICE in notice for notice in warm["notices"])
            assert any(hit["vec_rank"] is not None for hit in warm["results"])

    anyio.run(session)


def test_other_modes_and_the_context_tool_wait_for_the_models(
    indexed_vault: IndexedVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    handle = indexed_vault.handle()
    gate = gated(handle, monkeypatch)
    threading.Timer(1.0, gate.set).start()

    async def session() -> None:
        async with Client(build_server(handle), mode="legacy") as client:
            result = structured(
                await client.call_tool("obsidian_search", {"query": "asyncio", "mode": "vector"})
            )
            assert gate.is_set()
            assert result["mode"] == "vector" and result["results"]
            assert not any(LOADING_NOTICE in notice for notice in result["notices"])

    anyio.run(session)


# --- Kiwi, checked in a real server process ------------------------------------------------------


def rpc(message_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}
    return json.dumps(message).encode() + b"\n"


class ServeProcess:
    """``vaultctx serve`` over stdio, fed JSON-RPC lines; its memory maps show what it loaded."""

    def __init__(self, vault: Path, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=subprocess_env(),
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        self.process.stdin.write(rpc(self.next_id, method, params))
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            assert line, "the server exited"
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == self.next_id:
                return answer

    def search(self, query: str) -> dict[str, Any]:
        answer = self.request(
            "tools/call", {"name": "obsidian_search", "arguments": {"query": query}}
        )
        result: dict[str, Any] = answer["result"]["structuredContent"]
        return result

    def warmed_up(self) -> None:
        """Once searches rank by meaning, the warm-up (and any Kiwi load in it) is over."""
        deadline = time.monotonic() + WARM_UP_TIMEOUT_S
        while any(LOADING_NOTICE in n for n in self.search("warm")["notices"]):
            assert time.monotonic() < deadline, "the models never finished loading"
            time.sleep(0.1)

    def kiwi_mapped(self) -> bool:
        return "kiwipiepy" in Path(f"/proc/{self.process.pid}/maps").read_text()


@pytest.fixture
def serve_process() -> Iterator[type[ServeProcess]]:
    started: list[ServeProcess] = []

    class Tracked(ServeProcess):
        def __init__(self, vault: Path, db: Path) -> None:
            super().__init__(vault, db)
            started.append(self)
            self.request(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            )
            assert self.process.stdin is not None
            self.process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            self.process.stdin.flush()

    yield Tracked
    for server in started:
        server.process.kill()
        server.process.wait()


needs_proc = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")


@needs_proc
def test_an_english_vault_s_server_never_loads_kiwi_even_for_a_korean_query(
    tmp_path: Path, serve_process: type[ServeProcess]
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "asyncio.md").write_text("# Asyncio\n\nWrap awaits in a timeout.\n", encoding="utf-8")
    (vault / "garden.md").write_text("# Garden\n\nTomatoes need sun.\n", encoding="utf-8")
    db = tmp_path / "index.db"
    Vault(vault, db=db).index(fast=True)
    server = serve_process(vault, db)
    server.warmed_up()
    korean = server.search("비동기 asyncio timeout")  # a Hangul query, an index without Hangul
    assert korean["results"][0]["path"] == "asyncio.md"
    assert not server.kiwi_mapped()


@needs_proc
def test_a_korean_vault_s_server_loads_kiwi_in_its_warm_up(
    indexed_vault: IndexedVault, serve_process: type[ServeProcess]
) -> None:
    """The check above can fail: the example vault has Korean notes, so Kiwi is loaded."""
    pytest.importorskip("kiwipiepy")
    pytest.importorskip("kiwipiepy_model")
    server = serve_process(indexed_vault.vault, indexed_vault.db)
    server.warmed_up()
    assert server.kiwi_mapped()
