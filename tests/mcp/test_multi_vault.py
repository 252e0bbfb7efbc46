"""``serve --http --vaults FILE`` as a real process: two indexed vaults, two tokens, a real SDK
client on each; each sees only its own notes, and the read-scoped one has no write tools."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import Client
from tests.mcp.conftest import (
    HttpServer,
    IndexedVault,
    start_http_server,
    stop,
    subprocess_env,
    wait_for_models,
    wait_until_listening,
)
from vaultctx.api import Vault
from vaultctx.embed.base import embed_query
from vaultctx.mcp.multi_vault import open_served_vaults
from vaultctx.mcp.served_vaults import ServedVault

HANDBOOK_TOKEN = "Vq7tMZ2cR1xkPb9sLhW4dN8yFe3Gj0uAo6TiKw5nYrE"
TEAM_TOKEN = "8f3b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c"
TEAM_WORD = "quokkaplan"  # in the team vault only
RRF_NOTE = "30-resources/rag/Reciprocal rank fusion.md"  # in the example vault only


@dataclass(frozen=True)
class Served:
    server: HttpServer
    vaults_file: Path
    team_vault: Path

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.port}/mcp/{name}"


def write_vaults_file(root: Path, handbook: IndexedVault) -> tuple[Path, Path]:
    """The example vault as "handbook" (write scope, token from the environment) and a small
    "team" vault (read scope, token from a 0600 file), both indexed."""
    team = root / "team"
    team.mkdir()
    (team / "Plan.md").write_text(f"# Plan\nThe {TEAM_WORD} ships in May.\n", encoding="utf-8")
    (team / "Notes.md").write_text("# Notes\nWeekly sync on Tuesdays.\n", encoding="utf-8")
    with Vault(team, db=root / "team.db") as handle:
        handle.index(fast=True)
    token_file = root / "team.token"
    token_file.write_text(TEAM_TOKEN + "\n", encoding="ascii")
    token_file.chmod(0o600)
    vaults_file = root / "vaults.toml"
    vaults_file.write_text(
        f"""
[[vault]]
name = "handbook"
vault = "{handbook.vault}"
db = "{handbook.db}"
scope = "write"
token_env = "HANDBOOK_TOKEN"

[[vault]]
name = "team"
vault = "team"
db = "team.db"
token_file = "team.token"
""",
        encoding="utf-8",
    )
    return vaults_file, team


@pytest.fixture(scope="module")
def served(
    indexed_vault: IndexedVault, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    vaults_file, team = write_vaults_file(tmp_path_factory.mktemp("vaults"), indexed_vault)
    env = {**subprocess_env(), "HANDBOOK_TOKEN": HANDBOOK_TOKEN}
    server = start_http_server(["serve", "--vaults", str(vaults_file)], env)
    try:
        wait_until_listening(server)
        yield Served(server, vaults_file, team)
    finally:
        stop(server)


async def session(url: str, token: str, query: str) -> tuple[set[str], list[str], list[str]]:
    """The tools listed, the paths a search finds and the notes listed, over one session."""
    timeout = httpx2.Timeout(30.0, read=120.0)
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = {tool.name for tool in (await client.list_tools()).tools}
        await wait_for_models(client)  # then ranked by meaning too, through the shared models
        found = await client.call_tool("obsidian_search", {"query": query})
        listed = await client.call_tool("obsidian_list_notes", {"limit": 100})
        assert not found.is_error and not listed.is_error
        assert isinstance(found.structured_content, dict)
        assert isinstance(listed.structured_content, dict)
        paths = [hit["path"] for hit in found.structured_content["results"]]
        notes = [note["path"] for note in listed.structured_content["notes"]]
        return tools, paths, notes


def test_each_token_sees_only_its_own_vault(served: Served) -> None:
    tools, found, notes = anyio.run(session, served.url("team"), TEAM_TOKEN, TEAM_WORD)
    assert found[0] == "Plan.md" and set(found) <= {"Plan.md", "Notes.md"}
    assert sorted(notes) == ["Notes.md", "Plan.md"]
    _, found, _ = anyio.run(session, served.url("team"), TEAM_TOKEN, "reciprocal rank fusion")
    assert RRF_NOTE not in found

    handbook_tools, found, notes = anyio.run(
        session, served.url("handbook"), HANDBOOK_TOKEN, "reciprocal rank fusion"
    )
    assert RRF_NOTE in found and "Plan.md" not in notes and len(notes) > 2
    _, found, _ = anyio.run(session, served.url("handbook"), HANDBOOK_TOKEN, TEAM_WORD)
    assert not {"Plan.md", "Notes.md"} & set(found)

    # The read scope lists no writer; the write scope lists them all.
    assert "obsidian_search" in tools and "obsidian_create_note" not in tools
    assert {"obsidian_create_note", "obsidian_delete"} <= handbook_tools
    assert handbook_tools - tools == {
        "obsidian_create_note",
        "obsidian_edit_note",
        "obsidian_append_to_note",
        "obsidian_move",
        "obsidian_delete",
    }


def test_each_vault_answers_a_post_with_one_json_body(served: Served) -> None:
    """As ``serve --http`` does (mcp/server.py's ``JSON_RESPONSES``), for every vault served."""
    from tests.mcp.test_http import INITIALIZE, MCP_HEADERS

    for name, token in (("team", TEAM_TOKEN), ("handbook", HANDBOOK_TOKEN)):
        headers = {**MCP_HEADERS, "authorization": f"Bearer {token}"}
        answer = httpx2.post(served.url(name), json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 200, name
        assert answer.headers["content-type"].startswith("application/json"), name
        assert answer.json()["result"]["serverInfo"]["name"] == "vaultctx"


async def call_create(url: str, token: str) -> Any:
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await client.call_tool(
            "obsidian_create_note", {"path": "Injected.md", "content": "# Injected\n"}
        )


def test_read_scope_cannot_run_a_write_tool(served: Served) -> None:
    """Even though the server serves another vault with writes allowed."""
    try:
        result = anyio.run(call_create, served.url("team"), TEAM_TOKEN)
    except Exception as exc:  # the SDK may raise for an unknown tool instead of answering
        assert "obsidian_create_note" in str(exc)
    else:
        assert result.is_error
    assert not (served.team_vault / "Injected.md").exists()


def test_check_lists_the_vaults_without_their_tokens(served: Served) -> None:
    # A VAULTCTX_TOKEN from the shell profile is not a --token given with --vaults.
    env = {**subprocess_env(), "HANDBOOK_TOKEN": HANDBOOK_TOKEN, "VAULTCTX_TOKEN": "mine"}
    command = ["serve", "--vaults", str(served.vaults_file), "--check"]  # --http implied
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("/mcp/handbook  write  ") and "token: $HANDBOOK_TOKEN" in lines[0]
    assert lines[1].startswith("/mcp/team  read  ") and "team.db" in lines[1]
    assert "team.token" in lines[1]
    assert HANDBOOK_TOKEN not in done.stdout and TEAM_TOKEN not in done.stdout
    assert "2 vault(s)" in lines[2]


@pytest.mark.parametrize("option", [["--token", "x"], ["--vault", "."], ["--allow-writes"]])
def test_single_vault_options_do_not_combine_with_vaults(served: Served, option: list[str]) -> None:
    command = ["serve", "--http", "--vaults", str(served.vaults_file), "--check", *option]
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *command],
        env={**subprocess_env(), "HANDBOOK_TOKEN": HANDBOOK_TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0 and "cannot be combined with --vaults" in done.stderr
    assert option[0] in done.stderr and "Traceback" not in done.stderr


def test_vaults_share_the_process_models(tmp_path: Path) -> None:
    """One more vault costs its index, not another copy of the models."""
    served = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        served.append(
            ServedVault(name, tmp_path / name, str(tmp_path / f"{name}.db"), "read", name * 43, "")
        )
    first, second = open_served_vaults(served)
    assert first.db_path != second.db_path
    assert first.embedder() is second.embedder()
    shared = first.quality_embedder()
    assert shared is not None and shared is second.quality_embedder()
    own = Vault(tmp_path / "a").quality_embedder()  # a model of its own, not shared
    assert own is not None and own is not shared
    question = ["how do the rankings combine"]
    assert (embed_query(shared, question[0]) == embed_query(own, question[0])).all()
    assert (shared.embed(question) == own.embed(question)).all()
