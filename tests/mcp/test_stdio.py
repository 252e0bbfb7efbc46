"""``vaultctx serve`` over stdio as clients run it: a subprocess speaking JSON-RPC on its pipes."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from tests.mcp.conftest import IndexedVault, subprocess_env

# Generous: the bound catches a hang, not slowness (the SDK import alone takes 1-3 s here).
STARTUP_LIMIT_S = 30.0


def test_sdk_client_over_stdio(indexed_vault: IndexedVault) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultctx", *indexed_vault.serve_args()],
        env=subprocess_env(),
    )
    timings: dict[str, float] = {}

    async def session() -> None:
        started = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            timings["initialize"] = time.perf_counter() - started
            assert client.server_info is not None and client.server_info.name == "vaultctx"
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "obsidian_search" in names
            first = time.perf_counter()
            result = await client.call_tool("obsidian_search", {"query": "asyncio timeout"})
            timings["first search"] = time.perf_counter() - first
            assert not result.is_error
            assert isinstance(result.structured_content, dict)
            paths = [hit["path"] for hit in result.structured_content["results"]]
            assert "30-resources/python/asyncio patterns.md" in paths
            note = await client.call_tool("obsidian_read_note", {"file_path": paths[0]})
            assert not note.is_error

    anyio.run(session)
    print(f"stdio timings: {timings}")
    assert timings["initialize"] < STARTUP_LIMIT_S
    assert timings["first search"] < STARTUP_LIMIT_S


def rpc(message_id: int, method: str, params: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params})


HANDSHAKE = [
    rpc(
        1,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    ),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
]


class RawSession:
    """A server process fed raw JSON-RPC lines; started at once, read later, so that several
    sessions start in parallel (each spends seconds importing the SDK)."""

    def __init__(self, command: list[str], requests: list[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(),
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        stdout, stderr = self.process.stdout, self.process.stderr
        self.readers = [
            threading.Thread(target=lambda: list(map(self.lines.put, stdout)), daemon=True),
            threading.Thread(target=lambda: self.errors.extend(stderr), daemon=True),
        ]
        for reader in self.readers:
            reader.start()
        self.process.stdin.write("\n".join(requests) + "\n")
        self.process.stdin.flush()

    def collect(self, answers: int) -> tuple[list[Any], str]:
        """Read stdout until ``answers`` responses came, then close stdin; returns (messages,
        stderr). Every stdout line must parse as JSON: one stray print fails here. Input is
        closed only after the answers, as a server cancels what is in flight when it ends."""
        messages: list[Any] = []
        try:
            while sum("id" in message for message in messages) < answers:
                line = self.lines.get(timeout=STARTUP_LIMIT_S)
                if line.strip():
                    messages.append(json.loads(line))
        finally:
            self.close()
        return messages, "".join(self.errors)

    def close(self) -> None:
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.readers[1].join(timeout=10)


# Runs the CLI with every search printing to stdout first, as a careless library might.
STRAY_PRINTS = (
    "import vaultctx.api as api\n"
    "search = api.Vault.search\n"
    "def noisy(self, *args, **kwargs):\n"
    "    print('STRAY-PRINT')\n"
    "    return search(self, *args, **kwargs)\n"
    "api.Vault.search = noisy\n"
    "from vaultctx.cli.main import run\n"
    "run()\n"
)


@pytest.fixture(scope="module", autouse=True)
def raw_sessions(indexed_vault: IndexedVault) -> Iterator[dict[str, RawSession]]:
    stray = [sys.executable, "-c", STRAY_PRINTS, *indexed_vault.serve_args()]
    no_index = [sys.executable, "-m", "vaultctx", "serve", "--vault", str(indexed_vault.vault)]
    sessions = {
        "stray prints": RawSession(
            stray,
            [
                *HANDSHAKE,
                rpc(2, "tools/call", {"name": "obsidian_search", "arguments": {"query": "sql"}}),
                rpc(
                    3,
                    "tools/call",
                    {"name": "obsidian_read_note", "arguments": {"file_path": ".."}},
                ),
            ],
        ),
        "missing index": RawSession(
            [*no_index, "--db", str(missing_db(indexed_vault))],
            [
                *HANDSHAKE,
                rpc(2, "tools/call", {"name": "obsidian_search", "arguments": {"query": "x"}}),
            ],
        ),
    }
    yield sessions
    for session in sessions.values():
        session.close()


def missing_db(indexed_vault: IndexedVault) -> Path:
    return indexed_vault.db.with_name("never-built.db")


def test_stdout_carries_only_protocol(raw_sessions: dict[str, RawSession]) -> None:
    messages, stderr = raw_sessions["stray prints"].collect(answers=3)
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    answers = {message["id"]: message for message in messages if "id" in message}
    assert answers[1]["result"]["serverInfo"]["name"] == "vaultctx"
    assert answers[2]["result"]["isError"] is False
    assert answers[3]["result"]["isError"] is True
    assert "STRAY-PRINT" in stderr


def test_server_starts_without_an_index(
    raw_sessions: dict[str, RawSession], indexed_vault: IndexedVault
) -> None:
    """The client must get a useful tool error, not a dead server, before the first index run."""
    messages, stderr = raw_sessions["missing index"].collect(answers=2)
    result = next(m for m in messages if m.get("id") == 2)["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert "vaultctx index --vault" in json.loads(result["content"][0]["text"])["suggestion"]
    assert "not ready" in stderr, "the warm-up reports the missing index on stderr"
    assert not missing_db(indexed_vault).exists(), "a read-only server must not create it"
