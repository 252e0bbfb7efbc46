"""``vaultctx serve`` (stdio) as a relay to the engine, as MCP clients run it: the SDK's own
stdio client against a real engine process, compared with today's in-process server; two
relays at once; the engine killed mid-session and mid-request; no engine yet; an engine of
another version."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import Client
from tests.engine.conftest import (
    DEADLINE,
    Indexed,
    engine_answers,
    engine_env,
    freeze,
    start_engine,
    unread_bytes,
    wait_for,
)
from tests.engine.test_engine import OtherVersionEngine
from tests.mcp.conftest import wait_for_models
from tests.mcp.test_stdio import RawSession
from vaultctx.engine_link import client

SEARCH = {"query": "sqlite wal checkpoint", "limit": 3}
IN_PROCESS_NOTE = "vaultctx: serving MCP in-process"
SQLITE_NOTE = "30-resources/databases/SQLite tuning.md"


def serve_command(indexed: Indexed, *extra: str, in_process: bool = False) -> list[str]:
    switch = ["--no-engine"] if in_process else []
    return [sys.executable, "-m", "vaultctx", *switch, *indexed.args("serve", *extra)]


def sdk_session(indexed: Indexed, stderr: Path, *, in_process: bool = False) -> dict[str, Any]:
    """Initialize, list the tools and search (once the models are loaded) with the SDK's stdio
    client; what the client saw, as plain data."""
    command = serve_command(indexed, in_process=in_process)
    params = StdioServerParameters(command=command[0], args=command[1:], env=engine_env())
    seen: dict[str, Any] = {}

    async def session() -> None:
        with stderr.open("a") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as connected:
                assert connected.server_info is not None
                seen["server"] = connected.server_info.model_dump()
                seen["tools"] = (await connected.list_tools()).model_dump()
                await wait_for_models(connected)
                seen["search"] = (await connected.call_tool("obsidian_search", SEARCH)).model_dump()

    anyio.run(session)
    return seen


def test_the_sdk_client_through_the_relay_sees_the_in_process_server(
    indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    here = sdk_session(indexed, tmp_path / "here.err", in_process=True)
    start_engine()
    relayed = sdk_session(indexed, tmp_path / "relayed.err")
    assert relayed == here
    assert IN_PROCESS_NOTE not in (tmp_path / "relayed.err").read_text()
    _, status = client.request({"op": "status"})
    held = [(warm["vault"], warm["db"]) for warm in status["vaults"]]
    assert (str(indexed.vault), str(indexed.db)) in held


def test_two_relays_at_once(indexed: Indexed, folder: Path, tmp_path: Path) -> None:
    start_engine()
    results: dict[int, dict[str, Any]] = {}

    def one(n: int) -> None:
        results[n] = sdk_session(indexed, tmp_path / f"{n}.err")

    threads = [threading.Thread(target=one, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=DEADLINE * 2)
    assert results[0] == results[1]
    assert results[0]["search"]["is_error"] is False
    for n in range(2):
        assert IN_PROCESS_NOTE not in (tmp_path / f"{n}.err").read_text()


class Raw(RawSession):
    """``vaultctx serve`` fed JSON-RPC lines one at a time, its answers read by id."""

    def __init__(self, command: list[str]) -> None:
        super().__init__(command, [])  # no request yet (a blank line, which servers skip)
        self.answers: dict[int, dict[str, Any]] = {}
        self.next_id = 1
        self.sent: dict[int, int] = {}  # each request's id: the bytes of its line

    def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        number = self.next_id
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
        if params is not None:
            message["params"] = params
        self.sent[number] = self.write(message)
        return number

    def sent_since(self, number: int) -> int:
        """The bytes of the request lines from id ``number`` on."""
        return sum(size for sent, size in self.sent.items() if sent >= number)

    def write(self, message: dict[str, Any]) -> int:
        """Send one line; its size in bytes (as the relay passes it on, byte for byte)."""
        assert self.process.stdin
        line = json.dumps(message) + "\n"
        self.process.stdin.write(line)
        self.process.stdin.flush()
        return len(line.encode())

    def answer(self, number: int) -> dict[str, Any]:
        while number not in self.answers:
            message = json.loads(self.lines.get(timeout=DEADLINE))
            if "id" in message:
                assert message["id"] not in self.answers, f"answered twice: {message}"
                self.answers[message["id"]] = message
        return self.answers[number]

    def handshake(self) -> None:
        self.answer(
            self.send(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            )
        )
        self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: dict[str, Any]) -> int:
        return self.send("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> str:  # type: ignore[override]
        """stderr, once the relay has ended; every request was answered exactly once."""
        super().close()
        self.readers[0].join(timeout=DEADLINE)
        while not self.lines.empty():
            message = json.loads(self.lines.get())
            assert message.get("id") not in self.answers, f"answered twice: {message}"
        assert set(self.answers) == set(range(1, self.next_id)), "a request went unanswered"
        return "".join(self.errors)


def search_paths(answer: dict[str, Any]) -> list[str]:
    assert "result" in answer, answer
    return [hit["path"] for hit in answer["result"]["structuredContent"]["results"]]


def test_the_engine_killed_mid_session(indexed: Indexed, folder: Path) -> None:
    """Requests in flight when the engine dies are answered: a read runs again in-process, a
    write is refused with an error naming the problem (it may have been made); later requests
    are served in-process, and the relay says so once."""
    doomed = start_engine()
    raw = Raw(serve_command(indexed, "--allow-writes"))
    raw.handshake()
    assert SQLITE_NOTE in search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    freeze(doomed)  # it takes the next requests but answers nothing
    unread = unread_bytes(client.socket_path())
    in_flight = raw.call("obsidian_search", SEARCH)
    write = raw.call("obsidian_create_note", {"file_path": "new/Note.md", "content": "# New\n"})
    # Both requests relayed to the engine before it dies, not a guessed 0.5 s: a write the
    # relay had not sent yet would be run in-process instead of refused.
    wait_for(
        lambda: unread_bytes(client.socket_path()) >= unread + raw.sent_since(in_flight),
        "the relay sends both requests to the engine",
    )
    os.kill(doomed, signal.SIGKILL)
    assert SQLITE_NOTE in search_paths(raw.answer(in_flight))
    refused = raw.answer(write)["error"]
    assert "engine stopped while running obsidian_create_note" in refused["message"]
    assert "vaultctx changes" in refused["message"]
    assert SQLITE_NOTE in search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    stderr = raw.close()
    assert stderr.count(IN_PROCESS_NOTE) == 1, stderr
    assert "the engine stopped mid-session" in stderr


def test_no_engine_yet_the_relay_starts_it_and_the_first_call_answers(
    indexed: Indexed, folder: Path
) -> None:
    assert not engine_answers()
    raw = Raw(serve_command(indexed))
    raw.handshake()
    tools = raw.answer(raw.send("tools/list"))["result"]["tools"]
    assert "obsidian_search" in {tool["name"] for tool in tools}
    assert search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    stderr = raw.close()
    assert IN_PROCESS_NOTE not in stderr, stderr
    assert engine_answers()


def test_an_engine_of_another_version_is_replaced_and_the_session_served_here(
    indexed: Indexed, folder: Path
) -> None:
    old = OtherVersionEngine(client.socket_path())
    raw = Raw(serve_command(indexed))
    raw.handshake()
    assert search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    stderr = raw.close()
    assert f"{IN_PROCESS_NOTE}: the running engine is version 0.0.1/1" in stderr, stderr
    wait_for(old.stopped.is_set, "the other version is asked to stop")
    wait_for(engine_answers, "an engine of this version answers")
    assert client.request({"op": "status"})[0]["version"] == client.VERSION


def test_no_engine_switch_serves_in_process_and_starts_none(indexed: Indexed, folder: Path) -> None:
    raw = Raw(serve_command(indexed, in_process=True))
    raw.handshake()
    assert search_paths(raw.answer(raw.call("obsidian_search", SEARCH)))
    raw.close()
    assert not engine_answers()
    assert not client.socket_path().exists()
