"""A tool declared once, in agent/tool_list.py, is everywhere it belongs: offered in chat, listed
and callable over MCP (a writer only with ``--allow-writes``), asked about before it runs, recorded
by the undo ledger under its name, and shown by the web UI. A dummy tool added to ``TOOLS`` alone
must reach all of them; a copy of a list kept anywhere else would miss it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field

from mcp import Client
from tests.agent.tool_surface import agent_definitions
from tests.conftest import make_vault
from tests.ledger.conftest import isolate_data_dir
from vaultctx.agent import tool_list
from vaultctx.agent.brain_tools import session_tools
from vaultctx.agent.confirm import confirmed_tools, needs_confirmation
from vaultctx.agent.mcp_faces import ChangeDone, McpCall, McpFace
from vaultctx.agent.tool_contract import ToolContext, ToolSpec
from vaultctx.agent.toolset import VaultToolset
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext
from vaultctx.mcp.server import build_server
from vaultctx.ui.chat import tool_step

STAMP = "stamped"


async def _stamp(context: ToolContext, args: dict[str, Any]) -> str:
    path = args["path"]
    context.vault.append_to_note(path, STAMP, change=context.change("stamp_note", path))
    return f"Stamped: {path}"


def obsidian_stamp_note(
    path: Annotated[str, Field(min_length=1, description="The note to stamp.")],
) -> McpCall:
    def run(vault: Vault) -> Any:
        context = ChangeContext(label=f"stamp_note {path}", source="mcp")
        change = vault.append_to_note(path, STAMP, change=context)
        return ChangeDone(change, f"Stamped: {path}")

    return McpCall(run)


def obsidian_peek_note(
    path: Annotated[str, Field(min_length=1, description="The note to peek at.")],
) -> McpCall:
    return McpCall(lambda vault: vault.read_note(path), soon=True)


def dummy(writes: bool) -> tool_list.Tool:
    name, function = ("stamp_note", _stamp) if writes else ("peek_note", _stamp)
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    mcp = (
        McpFace(
            "obsidian_stamp_note", "Stamp", "Stamp a note.", obsidian_stamp_note, "change", "adds"
        )
        if writes
        else McpFace("obsidian_peek_note", "Peek", "Peek at a note.", obsidian_peek_note, "note")
    )
    return tool_list.Tool(ToolSpec(name, f"The {name} tool.", schema, function, writes), mcp)


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    isolate_data_dir(tmp_path / "data", monkeypatch)
    root = make_vault(tmp_path / "vault", {"Plan.md": "# Plan\n\nShip it.\n"})
    return Vault(root, db=tmp_path / "index.db")


async def _mcp_names_and_call(
    vault: Vault, *, allow_writes: bool, tool: str
) -> tuple[set[str], Any]:
    async with Client(build_server(vault, allow_writes=allow_writes)) as client:
        names = {listed.name for listed in (await client.list_tools()).tools}
        result = await client.call_tool(tool, {"path": "Plan.md"}) if tool in names else None
    return names, result


@pytest.mark.parametrize("writes", [True, False], ids=["writer", "reader"])
def test_a_tool_added_to_the_list_alone_is_seen_everywhere(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, writes: bool
) -> None:
    tool = dummy(writes)
    assert tool.mcp is not None
    monkeypatch.setattr(tool_list, "TOOLS", (*tool_list.TOOLS, tool))

    # In chat: offered to the model with its schema, with or without the Second Brain.
    offered = [d["name"] for d in asyncio.run(agent_definitions(vault))]
    assert offered[-1] == tool.name
    assert tool.name in {spec.name for spec in session_tools(vault)}
    assert tool.name in {spec.name for spec in tool_list.agent_tools(brain=True)}

    # Over MCP: a writer only with --allow-writes, a reader always; and it runs.
    read_only, _ = asyncio.run(_mcp_names_and_call(vault, allow_writes=False, tool="-"))
    names, result = asyncio.run(_mcp_names_and_call(vault, allow_writes=True, tool=tool.mcp.name))
    assert tool.mcp.name in names
    assert (tool.mcp.name in read_only) is not writes
    assert result is not None and not result.is_error, result

    # Asked about before it runs, and recorded by the ledger under its name, exactly if it writes.
    assert needs_confirmation(tool.name) is writes
    assert (tool.name in confirmed_tools()) is writes
    assert (tool.name in tool_list.writing_tools()) is writes
    if writes:
        assert (vault.path / "Plan.md").read_text(encoding="utf-8").endswith("\n" + STAMP)
        [record] = vault.ledger()
        assert (record.label, record.source) == ("stamp_note Plan.md", "mcp")

    # In the web UI: the call is shown under the tool's name.
    step = tool_step({"name": tool.name, "args": {"path": "Plan.md"}, "result_summary": "ok"})
    assert step["name"] == tool.name and json.loads(step["args"]) == {"path": "Plan.md"}


def test_the_chat_toolset_runs_a_tool_added_to_the_list(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = dummy(writes=True)
    monkeypatch.setattr(tool_list, "TOOLS", (*tool_list.TOOLS, tool))
    toolset = VaultToolset(ToolContext(vault))
    tools = asyncio.run(toolset.get_tools(None))  # type: ignore[arg-type]
    result = asyncio.run(toolset.call_tool(tool.name, {"path": "Plan.md"}, None, tools[tool.name]))  # type: ignore[arg-type]
    assert result == "Stamped: Plan.md"
    [record] = vault.ledger()
    assert (record.label, record.source) == ("stamp_note Plan.md", "agent")


def test_every_tool_has_one_name_and_its_faces_agree_on_writing() -> None:
    names = [tool.name for tool in tool_list.TOOLS]
    mcp_names = [tool.mcp.name for tool in tool_list.TOOLS if tool.mcp is not None]
    assert len(names) == len(set(names)) and len(mcp_names) == len(set(mcp_names))
    with pytest.raises(ValueError, match="disagree"):
        tool = dummy(writes=True)
        assert tool.mcp is not None
        tool_list.Tool(tool.agent, McpFace("obsidian_x", "X", "X.", obsidian_peek_note, "note"))
    with pytest.raises(ValueError, match="needs a chat face"):
        tool_list.Tool()
