"""The four tools and the note resource through the SDK's in-process client (memory transport)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from mcp import Client
from tests.mcp.conftest import OUTSIDE_SENTINEL, tool_error
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server
from vaultctx.search.budget import CHARS_PER_TOKEN, estimate_tokens

pytestmark = pytest.mark.anyio

TOOLS = {"obsidian_search", "obsidian_read_note", "obsidian_list_notes", "obsidian_get_context"}
DEPLOY = "10-projects/billing-service/Deploy config.md"
# Fake credentials in the example vault's Deploy config note; none may ever leave the server.
SECRETS = ("AKIAZ7VRSQ5TJN2UEXAM", "Zq3Vh8mK1xR7pT0wL5nY2cB9dF4gJ6sA8eU1iO3k", "ghp_R8mK2vX9pL4q")


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def call(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    return await client.call_tool(tool, arguments)


def assert_clean(result: CallToolResult) -> None:
    everything = text_of(result) + json.dumps(result.structured_content)
    for secret in (*SECRETS, OUTSIDE_SENTINEL):
        assert secret not in everything


async def test_tools_are_listed_read_only_with_schemas(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == TOOLS
    for tool in listed.values():
        hints = tool.annotations
        assert hints is not None
        assert (hints.read_only_hint, hints.idempotent_hint, hints.open_world_hint) == (
            True,
            True,
            False,
        )
        assert tool.description and len(tool.description) > 80
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    search = listed["obsidian_search"].input_schema["properties"]
    assert search["limit"]["default"] == 5 and search["max_tokens"]["default"] == 2000
    assert set(search["mode"]["enum"]) == {"hybrid", "bm25", "vector"}
    assert listed["obsidian_list_notes"].input_schema["properties"]["limit"]["default"] == 20
    assert (
        listed["obsidian_get_context"].input_schema["properties"]["max_tokens"]["default"] == 2000
    )
    assert listed["obsidian_read_note"].input_schema["required"] == ["file_path"]


async def test_search_returns_cited_passages_as_structure_and_text(client: Client) -> None:
    result = await call(client, "obsidian_search", query="WAL checkpoint busy timeout", limit=3)
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert 0 < data["count"] <= 3 and data["count"] == len(data["results"])
    top = data["results"][0]
    assert top["path"] == "30-resources/databases/SQLite tuning.md"
    assert top["citation"].startswith(top["path"])
    assert top["citation"] in text_of(result) and top["title"] in text_of(result)
    assert data["message"] is None


async def test_the_text_counts_results_in_the_singular_and_the_plural(client: Client) -> None:
    one = await call(client, "obsidian_search", query="WAL checkpoint", limit=1)
    assert "1 result for 'WAL checkpoint'" in text_of(one)
    two = await call(client, "obsidian_search", query="WAL checkpoint", limit=2)
    assert "2 results for 'WAL checkpoint'" in text_of(two)


async def test_search_respects_the_token_budget_and_scrubs(client: Client) -> None:
    result = await call(
        client, "obsidian_search", query="AWS access key GitHub token deploy", max_tokens=200
    )
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert sum(len(hit["text"]) for hit in data["results"]) <= 200 * CHARS_PER_TOKEN
    assert_clean(result)


async def test_no_results_suggest_broader_terms(client: Client) -> None:
    result = await call(client, "obsidian_search", query="xylophonequartzjumble", mode="bm25")
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert data["count"] == 0 and "broader" in data["message"]
    assert "broader" in text_of(result)


@pytest.mark.parametrize(
    ("tool", "argument"), [("obsidian_search", "query"), ("obsidian_get_context", "topic")]
)
async def test_a_blank_query_is_an_error_with_the_fix(
    client: Client, tool: str, argument: str
) -> None:
    error = tool_error(await call(client, tool, **{argument: "   "}))
    assert error == {
        "error": "the search query is empty",
        "suggestion": "give the words to look for, e.g. `compost`",
    }


async def test_weak_matches_carry_a_notice(client: Client) -> None:
    result = await call(client, "obsidian_search", query="banana bread recipe with walnuts")
    data = result.structured_content
    assert isinstance(data, dict) and data["count"] > 0
    assert any(notice.startswith("weak matches") for notice in data["notices"])
    assert "note: weak matches" in text_of(result)


async def test_out_of_range_arguments_are_tool_errors(client: Client) -> None:
    result = await call(client, "obsidian_search", query="sqlite", limit=500)
    assert result.is_error and "limit" in text_of(result)


async def test_read_note_whole_is_scrubbed(client: Client) -> None:
    result = await call(client, "obsidian_read_note", file_path=DEPLOY)
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert data["path"] == DEPLOY and data["title"] == "Deploy config"
    assert data["redactions"] >= 3 and "[REDACTED:" in data["text"]
    assert data["headings"] == ["Deploy config", "Environment", "CI"]
    assert not data["truncated"] and data["tokens"] == data["total_tokens"]
    assert_clean(result)


async def test_read_note_section_and_citation_forms(client: Client) -> None:
    by_argument = await call(client, "obsidian_read_note", file_path=DEPLOY, section="ci")
    by_citation = await call(client, "obsidian_read_note", file_path=f"{DEPLOY}#CI")
    for result in (by_argument, by_citation):
        data = result.structured_content
        assert isinstance(data, dict)
        assert data["section"] == "CI"
        assert data["text"].startswith("## CI") and "## Environment" not in data["text"]
        assert_clean(result)


async def test_read_note_by_bare_name_and_truncation(client: Client) -> None:
    result = await call(client, "obsidian_read_note", file_path="Deploy config", max_tokens=60)
    data = result.structured_content
    assert isinstance(data, dict)
    assert data["path"] == DEPLOY
    assert data["truncated"] and data["tokens"] <= 60 < data["total_tokens"]
    assert "truncated" in data["notice"] and "truncated" in text_of(result)


async def test_read_note_errors_carry_suggestions(client: Client) -> None:
    missing_section = await call(client, "obsidian_read_note", file_path=DEPLOY, section="Nope")
    assert "`Environment`" in tool_error(missing_section)["suggestion"]
    folder = await call(client, "obsidian_read_note", file_path="daily")
    assert "folder" in tool_error(folder)["suggestion"]


async def test_list_notes_filters(client: Client) -> None:
    daily = await call(client, "obsidian_list_notes", folder="daily")
    data = daily.structured_content
    assert isinstance(data, dict)
    paths = [note["path"] for note in data["notes"]]
    assert paths and all(p.startswith("daily/") for p in paths) and data["total"] == len(paths)
    tagged = await call(client, "obsidian_list_notes", tag="#project", limit=2)
    data = tagged.structured_content
    assert isinstance(data, dict)
    assert data["count"] == 2 < data["total"]
    assert all(any(t.startswith("project") for t in note["tags"]) for note in data["notes"])
    typed = await call(client, "obsidian_list_notes", type="daily", modified_since="2000-01-01")
    assert isinstance(typed.structured_content, dict)
    assert {n["type"] for n in typed.structured_content["notes"]} == {"daily"}
    assert "daily/" in text_of(typed)


async def test_list_notes_empty_and_invalid(client: Client) -> None:
    future = await call(client, "obsidian_list_notes", modified_since="2999-01-01")
    assert not future.is_error
    assert isinstance(future.structured_content, dict)
    assert future.structured_content["total"] == 0 and future.structured_content["message"]
    wrong_folder = await call(client, "obsidian_list_notes", folder="projects")
    assert isinstance(wrong_folder.structured_content, dict)
    assert "`10-projects`" in wrong_folder.structured_content["message"]
    bad_date = await call(client, "obsidian_list_notes", modified_until="last tuesday")
    assert "YYYY-MM-DD" in tool_error(bad_date)["suggestion"]


async def test_get_context_is_a_budgeted_block_with_sources(client: Client) -> None:
    result = await call(
        client, "obsidian_get_context", topic="SQLite FTS5 tokenizers", max_tokens=400
    )
    assert not result.is_error
    data = result.structured_content
    assert isinstance(data, dict)
    assert data["sources"] and estimate_tokens(data["markdown"]) <= 400
    assert all(source in data["markdown"] for source in data["sources"])
    assert text_of(result).startswith("## Context from my notes")


async def test_note_resource_template(client: Client) -> None:
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["vault://note/{+path}"]
    read = await client.read_resource("vault://note/10-projects/billing-service/Deploy%20config.md")
    text = getattr(read.contents[0], "text", "")
    assert "Deploy config" in text and "[REDACTED:" in text
    for secret in SECRETS:
        assert secret not in text
    with pytest.raises(MCPError):
        await client.read_resource("vault://note/.obsidian/leak.md")


async def test_missing_index_names_the_command_to_run(tmp_path: Path) -> None:
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    server = build_server(Vault(vault, db=tmp_path / "none.db"))
    async with Client(server, mode="legacy") as connected:
        for tool, arguments in (
            ("obsidian_search", {"query": "anything"}),
            ("obsidian_list_notes", {}),
            ("obsidian_get_context", {"topic": "anything"}),
        ):
            error = tool_error(await connected.call_tool(tool, arguments))
            assert f"vaultctx index --vault {vault.resolve()}" in error["suggestion"]
            assert "--db" in error["suggestion"]
        note = await connected.call_tool("obsidian_read_note", {"file_path": "a.md"})
        assert not note.is_error, "reading a note needs the file, not the index"
