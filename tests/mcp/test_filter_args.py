"""The filter arguments of obsidian_search and obsidian_list_notes (SPEC §8), through the SDK's
in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp_types import CallToolResult

from mcp import Client
from tests.mcp.conftest import tool_error, wait_for_models
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server

pytestmark = pytest.mark.anyio

NOTES = {
    "work/Plan.md": "---\nstatus: active\nproject: {phase: 2}\n---\n# Plan\n\nRelease #ship #ops\n",
    "work/Retro.md": "---\nstatus: done\nproject: {phase: 1}\n---\n# Retro\n\nRelease it #ops\n",
    "workshop/Bench.md": "---\nstatus: active\n---\n# Bench\n\nRelease the bench vise.\n",
    "home/Garden.md": "---\nstatus: active\n---\n# Garden\n\nRelease the hose. #ship/later\n",
}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    root = tmp_path_factory.mktemp("mcp-filters")
    for path, text in NOTES.items():
        (root / "vault" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / path).write_text(text, encoding="utf-8")
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    async with Client(build_server(vault), mode="legacy") as connected:
        await wait_for_models(connected)
        yield connected


async def call(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    return await client.call_tool(tool, arguments)


def paths(result: CallToolResult, key: str, field: str) -> set[str]:
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict)
    return {item[field] for item in data[key]}


async def test_filter_arguments_are_in_both_schemas(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("obsidian_search", "obsidian_list_notes"):
        properties = listed[name].input_schema["properties"]
        expected = {"folder", "tag", "tags", "tag_match", "where", "modified_since"}
        assert expected | {"modified_until"} <= set(properties)
        assert "KEY OP VALUE" in properties["where"]["description"]


async def test_search_with_filters(client: Client) -> None:
    everything = await call(client, "obsidian_search", query="release", limit=10, mode="bm25")
    assert paths(everything, "results", "path") == set(NOTES)
    by_folder = await call(client, "obsidian_search", query="release", limit=10, folder="work")
    assert paths(by_folder, "results", "path") == {"work/Plan.md", "work/Retro.md"}
    combined = await call(
        client,
        "obsidian_search",
        query="release",
        limit=10,
        tag="ship",
        where=["status = active", "project.phase > 1"],
        modified_since="2000-01-01",
    )
    assert paths(combined, "results", "path") == {"work/Plan.md"}


@pytest.mark.parametrize("tool", ["obsidian_search", "obsidian_list_notes"])
async def test_several_tags_match_any_or_all(client: Client, tool: str) -> None:
    key, field = ("results", "path") if tool == "obsidian_search" else ("notes", "path")
    query = {"query": "release", "limit": 10} if tool == "obsidian_search" else {}
    anyone = await call(client, tool, **query, tags=["ship", "#ops"])
    assert paths(anyone, key, field) == {"work/Plan.md", "work/Retro.md", "home/Garden.md"}
    every = await call(client, tool, **query, tags=["ship", "ops"], tag_match="all")
    assert paths(every, key, field) == {"work/Plan.md"}
    # The single `tag` of older clients still works, and joins the list.
    old_and_new = await call(client, tool, **query, tag="ops", tags=["ship"], tag_match="all")
    assert paths(old_and_new, key, field) == {"work/Plan.md"}
    bad = await client.call_tool(tool, {**query, "tags": ["ship"], "tag_match": "most"})
    assert bad.is_error


async def test_list_notes_takes_where(client: Client) -> None:
    active = await call(client, "obsidian_list_notes", where=["status = active"], tag="#ship")
    assert paths(active, "notes", "path") == {"work/Plan.md", "home/Garden.md"}
    data = active.structured_content
    assert isinstance(data, dict)
    assert data["filters"] == {"tag": "ship", "where": "status = active"}


async def test_an_empty_filtered_search_says_why(client: Client) -> None:
    result = await call(client, "obsidian_search", query="release", modified_until="2000-01-01")
    data = result.structured_content
    assert isinstance(data, dict) and data["count"] == 0
    assert any("no notes match the filters" in notice for notice in data["notices"])


@pytest.mark.parametrize("tool", ["obsidian_search", "obsidian_list_notes"])
async def test_a_bad_condition_is_a_tool_error_with_the_syntax(client: Client, tool: str) -> None:
    arguments: dict[str, Any] = {"where": ["status = active", "rating >"]}
    if tool == "obsidian_search":
        arguments["query"] = "release"
    error = tool_error(await client.call_tool(tool, arguments))
    assert "'rating >'" in error["error"] and "KEY OP VALUE" in error["error"]
    assert "status = active" in error["suggestion"]
    bad_date = tool_error(
        await client.call_tool(tool, {**arguments, "where": None, "modified_since": "yesterday"})
    )
    assert "'yesterday'" in bad_date["error"] and "YYYY-MM-DD" in bad_date["suggestion"]
    misspelt = tool_error(await client.call_tool(tool, {**arguments, "where": ["rating => 5"]}))
    assert "`=>` is not an operator" in misspelt["error"].replace(", which", "")
    assert "= != > >= < <= ~" in misspelt["error"] and "rating >= 4" in misspelt["suggestion"]
