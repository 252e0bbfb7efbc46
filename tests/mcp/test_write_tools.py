"""``vaultctx serve --allow-writes``: the writing tools over a real stdio connection, each change
recorded with source "mcp" and reverted by ``vaultctx undo``; without the flag, no writing tool."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent

from mcp import Client
from tests.conftest import make_vault
from tests.mcp.conftest import subprocess_env
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server
from vaultctx.vault.writes import FIND_REPLACE_TOGETHER

WRITERS = {
    "obsidian_create_note",
    "obsidian_edit_note",
    "obsidian_append_to_note",
    "obsidian_move",
    "obsidian_delete",
}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    vault = make_vault(
        tmp_path / "vault",
        {"Plan.md": "# Plan\n\nShip it.\n", "Budget.md": "# Budget\n\nSee [[Plan]].\n"},
    )
    env = {**subprocess_env(), "XDG_DATA_HOME": str(tmp_path / "data")}
    db = tmp_path / "index.db"
    return vault, db, env


def _text(result: Any) -> str:
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def test_writing_tools_over_stdio_are_recorded_and_undone(
    setup: tuple[Path, Path, dict[str, str]],
) -> None:
    vault, db, env = setup
    args = ["-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db), "--allow-writes"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(params, mode="legacy") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) >= WRITERS
            seen["hints"] = {
                name: (
                    tool.annotations.read_only_hint,
                    tool.annotations.destructive_hint,
                    tool.annotations.idempotent_hint,
                )
                for name, tool in tools.items()
                if tool.annotations is not None
            }
            created = await client.call_tool(
                "obsidian_create_note", {"path": "ideas/New.md", "content": "# New\n"}
            )
            assert not created.is_error and _text(created).startswith("Note created: ideas/New.md")
            edited = await client.call_tool(
                "obsidian_edit_note", {"path": "Plan.md", "find": "Ship", "replace": "Test"}
            )
            assert "Note partially updated: Plan.md (1 replaced)" in _text(edited)
            half = await client.call_tool("obsidian_edit_note", {"path": "Plan.md", "find": "x"})
            assert half.is_error and json.loads(_text(half))["error"] == FIND_REPLACE_TOGETHER
            escape = await client.call_tool(
                "obsidian_create_note", {"path": "../outside.md", "content": "x"}
            )
            assert escape.is_error and "parent folder" in json.loads(_text(escape))["error"]
            appended = await client.call_tool(
                "obsidian_append_to_note", {"path": "Plan.md", "content": "- more"}
            )
            assert _text(appended).startswith("Content appended: Plan.md")
            moved = await client.call_tool(
                "obsidian_move", {"source_path": "Plan.md", "destination_path": "done/Plan.md"}
            )
            assert _text(moved).startswith("File moved: Plan.md → done/Plan.md")
            assert isinstance(moved.structured_content, dict)
            assert moved.structured_content["rewritten"] == []  # [[Plan]] still resolves
            deleted = await client.call_tool("obsidian_delete", {"path": "ideas"})
            assert _text(deleted).startswith("Folder deleted: ideas (moved to .trash/ideas)")

    anyio.run(session)
    hints = seen["hints"]
    assert hints["obsidian_search"][0] is True
    assert hints["obsidian_edit_note"] == (False, True, False)
    assert hints["obsidian_move"] == (False, True, False)
    assert hints["obsidian_delete"] == (False, True, False)
    assert hints["obsidian_create_note"][0] is False and hints["obsidian_create_note"][2] is False

    def cli(*words: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "vaultctx", *words, "--vault", str(vault), "--db", str(db)]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)

    listed = json.loads(cli("ledger", "--json").stdout)
    assert [record["source"] for record in listed] == ["mcp"] * 5
    assert listed[0]["label"] == "delete_file ideas"
    undone = cli("undo")
    assert undone.returncode == 0, undone.stderr
    assert "delete_file ideas" in undone.stdout
    assert (vault / "ideas/New.md").read_text() == "# New\n"
    assert not (vault / ".trash/ideas").exists()


async def _tool_names(vault: Vault, allow_writes: bool) -> set[str]:
    server = build_server(vault, allow_writes=allow_writes)
    async with Client(server, mode="legacy") as client:
        return {tool.name for tool in (await client.list_tools()).tools}


def test_without_the_flag_the_server_cannot_write(
    setup: tuple[Path, Path, dict[str, str]],
) -> None:
    vault, db, _ = setup
    handle = Vault(vault, db=db)
    assert not WRITERS & anyio.run(_tool_names, handle, False)
    assert anyio.run(_tool_names, handle, True) >= WRITERS
