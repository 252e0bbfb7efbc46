"""Every way out of the vault, tried through the MCP tools and the note resource: all refused.

The vault copy has a symlinked file and a symlinked folder that point outside it and a note in
``.obsidian/``; each of them holds a sentinel string that must never appear in any response.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from mcp.shared.exceptions import MCPError

from mcp import Client
from tests.mcp.conftest import OUTSIDE_SENTINEL, tool_error

pytestmark = pytest.mark.anyio

ATTACKS = [
    # plain and nested parent folders
    "..",
    "../",
    "../secret.md",
    "../outside/secret.md",
    "../../../../../../etc/passwd",
    "daily/../../outside/secret.md",
    "a/b/../../../outside/secret.md",
    "./../outside/secret.md",
    "10-projects/billing-service/Deploy config.md/../../../../outside/secret.md",
    # absolute, home and URL forms
    "/etc/passwd",
    "/",
    "//etc/passwd",
    "file:///etc/passwd",
    "~/../../etc/passwd",
    # Windows separators, drives and UNC paths
    "..\\outside\\secret.md",
    "..\\..\\..\\windows\\win.ini",
    "daily\\..\\..\\outside\\secret.md",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:secret.md",
    "\\\\server\\share\\secret.md",
    "//server/share/secret.md",
    "\\\\?\\C:\\outside\\secret.md",
    # percent-encoded, double-encoded and mixed
    "%2e%2e%2foutside%2fsecret.md",
    "%2e%2e/outside/secret.md",
    "..%2foutside%2fsecret.md",
    "..%5coutside%5csecret.md",
    "%2E%2E%5C%2E%2E%5Cetc%5Cpasswd",
    "%252e%252e%252foutside%252fsecret.md",
    "%25252e%25252e%25252fsecret.md",
    "%2fetc%2fpasswd",
    "%5c%5cserver%5cshare%5csecret.md",
    # NUL bytes and control characters
    "daily/2024-03-12.md\x00.md",
    "\x00../outside/secret.md",
    "secret%00.md",
    "daily/\n../../outside/secret.md",
    # dots Windows would collapse into ..
    "...",
    ".../outside/secret.md",
    ".. /outside/secret.md",
    # symlinks out of the vault and files never served
    "escape.md",
    "linked-outside/secret.md",
    ".obsidian/leak.md",
    ".obsidian/app.json",
    ".git/config",
    "templates/Meeting.md",
]


def test_the_suite_is_big_enough() -> None:
    assert len(set(ATTACKS)) == len(ATTACKS) >= 30


@pytest.mark.parametrize("attack", ATTACKS)
async def test_read_note_refuses(client: Client, attack: str) -> None:
    result = await client.call_tool("obsidian_read_note", {"file_path": attack})
    assert result.is_error, f"{attack!r} was served"
    error = tool_error(result)
    assert OUTSIDE_SENTINEL not in json.dumps(error)
    assert "root:" not in error["error"]  # /etc/passwd's first line


@pytest.mark.parametrize(
    "attack",
    ["../secret.md", "daily/../../outside/secret.md", "..\\outside\\secret.md", "/etc/passwd"],
)
async def test_list_folder_refuses(client: Client, attack: str) -> None:
    result = await client.call_tool("obsidian_list_notes", {"folder": attack})
    assert "path refused" in tool_error(result)["error"]


@pytest.mark.parametrize(
    "attack", ["../outside/secret.md", "escape.md", "linked-outside/secret.md", ".obsidian/leak.md"]
)
async def test_resource_refuses(client: Client, attack: str) -> None:
    with pytest.raises(MCPError) as refused:
        await client.read_resource("vault://note/" + quote(attack, safe=""))
    assert OUTSIDE_SENTINEL not in str(refused.value)


async def test_search_never_returns_files_outside(client: Client) -> None:
    result = await client.call_tool("obsidian_search", {"query": OUTSIDE_SENTINEL, "limit": 50})
    assert not result.is_error
    assert isinstance(result.structured_content, dict)
    assert OUTSIDE_SENTINEL not in json.dumps(result.structured_content["results"])
