"""``obsidian_search`` with ``graph``/``depth`` through the SDK's in-process client."""

from __future__ import annotations

import pytest

from mcp import Client
from tests.mcp.test_tools import call, text_of

pytestmark = pytest.mark.anyio

MOC = "30-resources/MOC - Engineering.md"
RRF = "30-resources/rag/Reciprocal rank fusion.md"


async def test_graph_and_depth_are_in_the_schema(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    properties = listed["obsidian_search"].input_schema["properties"]
    assert properties["graph"]["default"] is False
    assert (properties["depth"]["default"], properties["depth"]["maximum"]) == (1, 3)


async def test_graph_search_explains_each_hit_and_offers_mocs(client: Client) -> None:
    result = await call(
        client, "obsidian_search", query="reciprocal rank fusion", limit=5, graph=True, depth=1
    )
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    top = data["results"][0]
    assert top["path"] == RRF and top["graph"]["role"] == "seed" and top["graph"]["hop"] == 0
    for hit in data["results"]:
        why = hit["graph"]
        assert why is None or (why["role"] == "seed") == (why["hop"] == 0 and why["via"] is None)
    [moc] = [m for m in data["related_mocs"] if m["path"] == MOC]
    assert RRF in moc["links_to"]
    assert MOC in text_of(result) and "Maps of content" in text_of(result)


async def test_without_graph_there_is_no_explanation(client: Client) -> None:
    result = await call(client, "obsidian_search", query="reciprocal rank fusion", limit=3)
    data = result.structured_content
    assert isinstance(data, dict)
    assert all(hit["graph"] is None for hit in data["results"])
    assert data["related_mocs"] == []


async def test_depth_out_of_range_is_a_tool_error(client: Client) -> None:
    result = await call(client, "obsidian_search", query="fusion", graph=True, depth=4)
    assert result.is_error and "depth" in text_of(result)
