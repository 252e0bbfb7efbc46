"""The agent's MCP client against real servers: ``vaultctx serve`` over an indexed copy of the
example vault, and a small SDK server that echoes, prints its environment, hangs, fails and
crashes (tests/agent/mcp_test_server.py).

The two long-lived servers start once per module, on an event loop in a thread of its own (as the
chat keeps them on its one loop between turns); tests that crash, hang or stop a server start
their own. Deadlines are generous (a loaded 2-core machine) wherever they bound a wait, and tight
only where the promise is about time: the timeout, the reconnect spacing, the kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.agent.cli_support import Indexed
from tests.conftest import REPO
from vaultctx.agent.mcp_client import RECONNECT_DELAY_S, McpClients
from vaultctx.agent.mcp_config import McpServerConfig
from vaultctx.agent.mcp_stdio import INHERITED_ENV, KILL_AFTER_S

TEST_SERVER = Path(__file__).with_name("mcp_test_server.py")
# Set in our environment while the servers start: none may reach them.
PARENT_SECRETS = {
    "OPENAI_API_KEY": "sk-parent-0123456789",
    "AWS_SECRET_ACCESS_KEY": "aws-parent-secret",
    "VAULTCTX_TOKEN": "vaultctx-parent-token",
    "VAULTCTX_AGENT_API_KEY_SECRET": "parent-secret-name",
}
T = TypeVar("T")


class LoopThread:
    """An event loop running in a thread: servers started on it outlive a test's call."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def vaultctx_server(indexed: Indexed, home: Path) -> McpServerConfig:
    """``vaultctx serve`` as an external server, with a private config and data dir."""
    env = {
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "VAULTCTX_ENGINE": "off",  # the server itself, not a relay to an engine left running
    }
    args = ("-m", "vaultctx", "serve", "--vault", str(indexed.vault), "--db", str(indexed.db))
    return McpServerConfig("vaultctx", sys.executable, args, env)


def sdk_server(name: str, **env: str) -> McpServerConfig:
    return McpServerConfig(name, sys.executable, (str(TEST_SERVER),), env)


@dataclass
class Running:
    loop: LoopThread
    clients: McpClients
    log_dir: Path

    def call(self, name: str, **arguments: Any) -> str:
        return self.loop.run(self.clients.call(name, arguments))


@pytest.fixture(scope="module")
def running(indexed: Indexed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    home = tmp_path_factory.mktemp("mcp-client")
    servers = [
        vaultctx_server(indexed, home),
        sdk_server("tools", KEPT="kept-value"),
        McpServerConfig("off", "no-such-program", disabled=True),
    ]
    clients = McpClients(servers, timeout=60, log_dir=home / "logs")
    loop = LoopThread()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in PARENT_SECRETS.items():
            patch.setenv(name, value)
        loop.run(clients.start())
    try:
        yield Running(loop, clients, home / "logs")
    finally:
        loop.run(clients.stop())
        loop.close()


def test_each_servers_tools_are_offered_as_mcp_server_tool(running: Running) -> None:
    status = {s.name: (s.state, s.tools, s.last_error) for s in running.clients.status()}
    assert status == {
        "vaultctx": ("running", 4, None),
        "tools": ("running", 5, None),
        "off": ("disabled", 0, None),
    }
    names = [tool.name for tool in running.clients.tools()]
    assert names[:4] == [
        "mcp_vaultctx_obsidian_search",
        "mcp_vaultctx_obsidian_read_note",
        "mcp_vaultctx_obsidian_list_notes",
        "mcp_vaultctx_obsidian_get_context",
    ]
    assert "mcp_tools_echo" in names
    search = running.clients.tools()[0]
    assert search.description.startswith("[MCP:vaultctx] ")
    assert "query" in search.parameters["properties"]


def test_a_search_answers_from_the_indexed_vault(running: Running) -> None:
    answer = running.call("mcp_vaultctx_obsidian_search", query="asyncio timeout")
    assert "30-resources/python/asyncio patterns.md" in answer
    assert not answer.startswith("Tool execution error")


def test_an_agent_calls_the_search_through_the_toolset(running: Running) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    offered: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returned = [
            part
            for message in messages
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        if not returned:
            offered.extend(tool.name for tool in info.function_tools)
            call = ToolCallPart("mcp_vaultctx_obsidian_search", {"query": "asyncio timeout"})
            return ModelResponse(parts=[call])
        return ModelResponse(parts=[TextPart(f"the notes say: {returned[0].content}")])

    agent = Agent(FunctionModel(model), toolsets=[running.clients.toolset()])
    result = running.loop.run(agent.run("How do I time out an asyncio task?"))
    assert "mcp_vaultctx_obsidian_search" in offered and "mcp_tools_hang" in offered
    assert "30-resources/python/asyncio patterns.md" in result.output


def test_the_server_gets_only_the_fifteen_variables_and_its_own(running: Running) -> None:
    seen = json.loads(running.call("mcp_tools_environment"))
    for name in PARENT_SECRETS:
        assert name not in seen
    assert not [name for name in seen if name.startswith(("AWS_", "VAULTCTX_", "OPENAI"))]
    assert seen["KEPT"] == "kept-value"
    # macOS adds __CF_USER_TEXT_ENCODING to every process it starts; nothing else may appear.
    assert set(seen) - {"__CF_USER_TEXT_ENCODING"} <= set(INHERITED_ENV) | {"KEPT"}
    assert seen["PATH"] == os.environ["PATH"]


def test_failures_come_back_as_lines_the_model_reads(running: Running) -> None:
    failed = running.call("mcp_tools_fail")
    assert failed.startswith("Tool execution error: mcp_tools_fail: ")
    assert failed.endswith("the disk is full")
    missing = running.call("mcp_tools_echo")  # no text: the server refuses the arguments
    assert missing.startswith("Tool execution error: mcp_tools_echo: ")
    assert running.call("mcp_nope_x") == "Tool execution error: mcp_nope_x: no such tool"
    assert running.call("mcp_tools_echo", text="still here") == "still here"


def test_the_servers_stderr_goes_to_its_log(running: Running) -> None:
    assert "test server starting" in (running.log_dir / "tools.log").read_text(encoding="utf-8")


def run_alone(
    servers: list[McpServerConfig],
    tmp_path: Path,
    body: Callable[[McpClients], Any],
    **options: Any,
) -> None:
    async def session() -> None:
        async with McpClients(servers, log_dir=tmp_path / "logs", **options) as clients:
            await body(clients)

    asyncio.run(session())


async def wait_for(condition: Callable[[], bool], deadline_s: float = 90) -> None:
    deadline = time.monotonic() + deadline_s
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


def starts(path: Path) -> list[tuple[float, int]]:
    lines = path.read_text(encoding="utf-8").split() if path.exists() else []
    return [(float(lines[i]), int(lines[i + 1])) for i in range(0, len(lines), 2)]


def test_a_hanging_tool_times_out_within_a_second_of_the_setting(tmp_path: Path) -> None:
    timeout = 1.0
    timings: list[float] = []

    async def body(clients: McpClients) -> None:
        started = time.monotonic()
        answer = await clients.call("mcp_slow_hang", {})
        timings.append(time.monotonic() - started)
        assert answer == f"Tool execution error: mcp_slow_hang: timed out after {timeout:g} s"
        # The late reply is dropped, the server is still there.
        assert await clients.call("mcp_slow_echo", {"text": "after"}) == "after"

    run_alone([sdk_server("slow")], tmp_path, body, timeout=timeout)
    print(f"timeout {timeout} s fired after {timings[0]:.3f} s")
    assert timeout <= timings[0] < timeout + 1


def test_a_crashed_server_is_started_again(tmp_path: Path) -> None:
    record = tmp_path / "starts"

    async def body(clients: McpClients) -> None:
        answer = await clients.call("mcp_crashy_crash", {})
        assert answer.startswith("Tool execution error: mcp_crashy_crash: ")
        # The next call waits for the restart instead of finding the server down.
        assert await clients.call("mcp_crashy_echo", {"text": "at once"}) == "at once"
        await wait_for(lambda: len(starts(record)) == 2 and clients.status()[0].state == "running")
        assert await clients.call("mcp_crashy_echo", {"text": "back"}) == "back"

    server = sdk_server("crashy", STARTS_FILE=str(record))
    run_alone([server], tmp_path, body, reconnect_delay=0.2)


# The same three attempts 0.5 s apart in a developer's run; the real 5 s delay (about 15 s) in
# the slow step (`pytest -m slow`, which CI runs).
@pytest.mark.parametrize("delay", [0.5, pytest.param(None, marks=pytest.mark.slow)])
def test_a_server_that_keeps_crashing_is_tried_three_times_apart_then_failed(
    tmp_path: Path, delay: float | None
) -> None:
    """Each attempt a reconnect delay after the last ended; None: the product's own (5 s)."""
    wanted = RECONNECT_DELAY_S if delay is None else delay
    record, refuse = tmp_path / "starts", tmp_path / "refuse"

    async def body(clients: McpClients) -> None:
        refuse.touch()  # from now on every start fails at once
        await clients.call("mcp_crashy_crash", {})
        crashed = time.time()
        await wait_for(lambda: clients.status()[0].state == "reconnecting")
        # A call while it is being started again waits for the outcome, here the failure.
        answer = await clients.call("mcp_crashy_echo", {"text": "x"})
        assert answer == (
            "Tool execution error: mcp_crashy_echo: server 'crashy' is unavailable "
            "(failed: exited with status 4: boom: refusing to start)"
        )
        status = clients.status()[0]
        assert status.state == "failed"
        assert status.last_error == "exited with status 4: boom: refusing to start"
        assert "mcp_crashy_echo" in [tool.name for tool in clients.tools()]  # still offered
        times = [when for when, _ in starts(record)]
        assert len(times) == 4  # the first start and three more
        # Each attempt a delay after the last ended: the crash, then each refusal (~0.1 s long).
        gaps = [times[1] - crashed, times[2] - times[1], times[3] - times[2]]
        print(f"reconnects after the crash: {[round(gap, 2) for gap in gaps]} s apart")
        assert all(wanted - 0.1 <= gap < wanted + 3 for gap in gaps)

    server = sdk_server("crashy", STARTS_FILE=str(record), REFUSE_FILE=str(refuse))
    run_alone([server], tmp_path, body, **({} if delay is None else {"reconnect_delay": delay}))


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGTERM to ignore")
def test_stop_terminates_then_kills_after_3s(tmp_path: Path) -> None:
    record = tmp_path / "starts"
    server = sdk_server("stubborn", STARTS_FILE=str(record), IGNORE_TERM="1")

    async def session() -> float:
        clients = McpClients([server], log_dir=tmp_path / "logs")
        await clients.start()
        assert clients.status()[0].state == "running"
        started = time.monotonic()
        await clients.stop()
        return time.monotonic() - started

    took = asyncio.run(session())
    print(f"a server ignoring SIGTERM was killed after {took:.2f} s")
    assert KILL_AFTER_S <= took < KILL_AFTER_S + 3
    [(_, pid)] = starts(record)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_server_that_cannot_start_is_failed_with_the_reason(tmp_path: Path) -> None:
    servers = [
        McpServerConfig("ghost", str(tmp_path / "no-such-program")),
        sdk_server("refuses", REFUSE_FILE=str(TEST_SERVER)),  # the file exists: it exits
    ]

    async def body(clients: McpClients) -> None:
        ghost, refuses = clients.status()
        assert ghost.state == "failed" and "cannot start" in (ghost.last_error or "")
        assert refuses.state == "failed"
        assert refuses.last_error == "exited with status 4: boom: refusing to start"
        assert clients.tools() == []  # neither ever listed a tool

    run_alone(servers, tmp_path, body)
