"""An external MCP server that crashes in the middle of a chat turn: the turn goes on, the server
is started again within it (3 tries, ``reconnect_delay`` apart: 5 s by default, shorter here),
and when it cannot be, its tools stay offered and answer that it is unavailable.

Real processes throughout: the SDK test server (tests/agent/mcp_test_server.py) exits on its N-th
``echo``, the real MCP client talks to it over stdio, and a scripted model drives the turn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agent.scripted_model import FINAL, Call, ScriptedModel
from tests.agent.session_support import no_retrieval, scripted_session
from tests.agent.test_mcp_client import sdk_server, starts
from tests.agent.tool_support import vault_copy
from vaultctx.agent.mcp_client import RECONNECT_DELAY_S, McpClients
from vaultctx.agent.session import Turn
from vaultctx.api import Vault

CLOSED = (
    "Tool execution error: mcp_crashy_echo: server 'crashy' closed the connection; it is being "
    "started again, so the next call may work"
)


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    no_retrieval(monkeypatch)
    return vault_copy(tmp_path)


def echo(text: str) -> Call:
    return Call("mcp_crashy_echo", {"text": text})


def turn_with(
    vault: Vault, script: ScriptedModel, clients: McpClients, before: object = None
) -> Turn:
    session = scripted_session(vault, script)
    session.mcp = clients

    async def chat() -> Turn:
        await clients.start()
        try:
            if callable(before):
                before()
            return await session.ask("go", lambda delta: None)
        finally:
            await clients.stop()

    return asyncio.run(chat())


def test_the_default_delay_between_reconnects_is_5_s() -> None:
    assert RECONNECT_DELAY_S == 5.0
    assert McpClients([]).servers == []  # the default is taken without a server too


def test_a_server_that_crashes_mid_turn_is_back_within_the_turn(
    vault: Vault, tmp_path: Path
) -> None:
    record = tmp_path / "starts"
    server = sdk_server("crashy", CRASH_AFTER="2", STARTS_FILE=str(record))
    clients = McpClients([server], log_dir=tmp_path / "logs", timeout=60, reconnect_delay=0.2)
    script = ScriptedModel([[echo("one")], [echo("two")], [echo("three")]])
    turn = turn_with(vault, script, clients)
    assert turn.error is None and turn.stopped is None and turn.answer == FINAL
    assert script.tool_results(1) == ["one"]
    assert script.tool_results(3) == ["three"]  # the restarted server answered
    assert script.tool_results(2) == [CLOSED]
    assert len(starts(record)) == 2


def test_a_server_that_cannot_be_restarted_says_its_tools_are_unavailable(
    vault: Vault, tmp_path: Path
) -> None:
    record, refuse = tmp_path / "starts", tmp_path / "refuse"
    server = sdk_server("crashy", CRASH_AFTER="1", STARTS_FILE=str(record), REFUSE_FILE=str(refuse))
    clients = McpClients([server], log_dir=tmp_path / "logs", timeout=60, reconnect_delay=0.2)
    script = ScriptedModel([[echo("one")], [echo("two")], ["Sorry, that server is down."]])
    turn = turn_with(vault, script, clients, before=refuse.touch)
    assert turn.error is None and turn.stopped is None
    assert turn.answer == "Sorry, that server is down."
    assert all("mcp_crashy_echo" in offered for offered in script.offered)  # never vanished
    assert script.tool_results(2) == [
        "Tool execution error: mcp_crashy_echo: server 'crashy' is unavailable "
        "(failed: exited with status 4: boom: refusing to start)"
    ]
    assert script.tool_results(1) == [CLOSED]
    assert len(starts(record)) == 4  # the first start and three more
