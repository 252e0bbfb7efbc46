"""The MCP server remembers its last scrub of the strings it sends (mcp/scrubbed.py): an answer
given again, from that memory, is as scrubbed as the first, and a memory that evicted the
scrubbed text scrubs again rather than sending the raw one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_types import TextContent

from mcp import Client
from tests.conftest import make_vault
from tests.postgres.conftest import location_for
from tests.security.stored_index import STORES, tamper
from vaultctx.api import Vault
from vaultctx.config import Config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.indexer import Indexer
from vaultctx.index.text_codec import pack_text
from vaultctx.mcp import server
from vaultctx.mcp.scrubbed import ScrubMemory

TOKEN = "ghp_" + "x9K2mQ7vL4pR8sT1wY6zB3nD5fH0jC2aE7gU"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_every_string_of_a_tree_is_scrubbed_again_from_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server, "SCRUBBED", ScrubMemory(budget_chars=200, longest_chars=100))
    tree = {"path": f"deploy {TOKEN}.md", "hits": [{"text": f"use {TOKEN}"}, "plain"], "n": 3}
    for _ in range(3):  # the first scrubs, then the memory answers, then a fresh one again
        sent = json.dumps(server._scrub_tree(tree))
        assert TOKEN not in sent and TOKEN[4:] not in sent and "REDACTED" in sent
        assert '"n": 3' in sent and '"plain"' in sent


def older_index(
    tmp_path: Path, embedder: StaticEmbedder, kind: str, request: pytest.FixtureRequest
) -> Vault:
    """An index an older vaultctx wrote: a token in a path, a title, a section and a passage."""
    note = "# Deploy\n\n## Steps\n\nthe lighthouse release checklist\n"
    vault = make_vault(tmp_path / "vault", {"deploy.md": note})
    db = location_for(kind, vault, tmp_path, request)
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    passage = pack_text(f"the lighthouse release checklist, signed with {TOKEN}")
    tamper(
        db,
        ("UPDATE files SET path = ?, title = ?", (f"deploy {TOKEN}.md", TOKEN)),
        ("UPDATE chunks SET section = ?, body = ?", (f"Steps {TOKEN}", passage)),
    )
    return Vault(vault, db=db)


@pytest.mark.parametrize("kind", STORES)
async def test_a_repeated_search_is_scrubbed_like_the_first(
    tmp_path: Path,
    embedder: StaticEmbedder,
    kind: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every answer, the first and those the memory gives, keeps the token from the client."""
    monkeypatch.setattr(server, "SCRUBBED", ScrubMemory())
    handle = older_index(tmp_path, embedder, kind, request)
    arguments = {"query": "lighthouse release", "mode": "bm25"}
    async with Client(server.build_server(handle), mode="legacy") as client:
        answers = []
        for _ in range(3):
            result = await client.call_tool("obsidian_search", arguments)
            shown = "".join(b.text for b in result.content if isinstance(b, TextContent))
            answers.append(shown + json.dumps(result.structured_content))
    assert len(server.SCRUBBED) > 0
    assert answers[0] == answers[1] == answers[2]
    assert "lighthouse" in answers[0] and "deploy" in answers[0] and "signed with" in answers[0]
    assert TOKEN not in answers[0] and TOKEN[4:] not in answers[0]
