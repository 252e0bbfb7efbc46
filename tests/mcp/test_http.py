"""``vaultctx serve --http`` as a real process: SDK client, DNS-rebinding checks, bearer token."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from mcp import Client
from tests.mcp.conftest import (
    HttpServer,
    IndexedVault,
    free_port,
    start_http_server,
    stop,
    subprocess_env,
    wait_until_listening,
)

# 43 URL-safe characters (32 random bytes): the least a server bound beyond loopback accepts.
TOKEN = "Vq7tMZ2cR1xkPb9sLhW4dN8yFe3Gj0uAo6TiKw5nYrE"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def servers(indexed_vault: IndexedVault) -> Iterator[dict[str, HttpServer]]:
    """Both servers start at once: each spends seconds importing the SDK. The local one opts out
    of the token, so the Host and Origin checks are seen on their own."""
    token_env = {**subprocess_env(), "VAULTCTX_TOKEN": TOKEN}
    started = {
        "local": start_http_server([*indexed_vault.serve_args(), "--no-token"]),
        # Binds every interface but is called on 127.0.0.1 below, as the token is what matters.
        "token": start_http_server([*indexed_vault.serve_args(), "--host", "0.0.0.0"], token_env),
    }
    try:
        for server in started.values():
            wait_until_listening(server)
        yield started
    finally:
        for server in started.values():
            stop(server)


def post(server: HttpServer, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.post(
        server.url, json=INITIALIZE, headers={**MCP_HEADERS, **(headers or {})}, timeout=30
    )


async def search_over_http(url: str, headers: dict[str, str] | None = None) -> Any:
    timeout = httpx2.Timeout(30.0, read=120.0)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "obsidian_get_context" in tools
        result = await client.call_tool("obsidian_search", {"query": "reciprocal rank fusion"})
        assert not result.is_error
        return result.structured_content


def test_sdk_client_over_http(servers: dict[str, HttpServer]) -> None:
    found = anyio.run(search_over_http, servers["local"].url)
    assert "30-resources/rag/Reciprocal rank fusion.md" in [h["path"] for h in found["results"]]


def test_a_post_is_answered_with_one_json_body(servers: dict[str, HttpServer]) -> None:
    """One JSON body per request, not a server-sent-event stream of one event (mcp/server.py's
    ``JSON_RESPONSES``): MCP clients accept both, and the stream cost the server ~1/6 of its CPU
    per search."""
    answer = post(servers["local"])
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["result"]["serverInfo"]["name"] == "vaultctx"
    assert answer.headers["mcp-session-id"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 200),
        ({"origin": "http://localhost:3000"}, 200),
        ({"host": "localhost"}, 200),
        ({"host": "evil.example"}, 421),
        ({"host": "evil.example:8765"}, 421),
        ({"host": "127.0.0.1.evil.example"}, 421),
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "http://127.0.0.1.evil.example:3000"}, 403),
        ({"origin": "null"}, 403),
    ],
)
def test_only_local_host_and_origin_headers(
    servers: dict[str, HttpServer], headers: dict[str, str], status: int
) -> None:
    assert post(servers["local"], headers).status_code == status


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"authorization": "Bearer wrong"}, 401),
        ({"authorization": TOKEN}, 401),
        ({"authorization": f"Basic {TOKEN}"}, 401),
        ({"authorization": f"Bearer {TOKEN}"}, 200),
        ({"authorization": f"Bearer {TOKEN}", "host": "evil.example"}, 421),
    ],
)
def test_bearer_token_checked_on_every_request(
    servers: dict[str, HttpServer], headers: dict[str, str], status: int
) -> None:
    assert post(servers["token"], headers).status_code == status


def test_sdk_client_with_and_without_the_token(servers: dict[str, HttpServer]) -> None:
    url = servers["token"].url
    found = anyio.run(search_over_http, url, {"Authorization": f"Bearer {TOKEN}"})
    assert found["count"] > 0
    with pytest.raises(Exception) as refused:
        anyio.run(search_over_http, url)
    assert any(isinstance(leaf, MCPError) for leaf in leaves(refused.value))


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, which anyio task groups raise."""
    inner = getattr(error, "exceptions", None)
    return [leaf for child in inner for leaf in leaves(child)] if inner else [error]


def test_binding_beyond_loopback_needs_a_token(indexed_vault: IndexedVault) -> None:
    exposed = ["--http", "--host", "0.0.0.0", "--port", str(free_port()), "--no-token"]
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *indexed_vault.serve_args(), *exposed],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert "--token" in done.stderr and "VAULTCTX_TOKEN" in done.stderr


def test_the_access_log_is_one_plain_line_per_request(indexed_vault: IndexedVault) -> None:
    """Rich's handler (the SDK's default) laid each record out as a table wrapped at 80 columns,
    and cost a fifth of the server's interpreter time under 20 clients: each request is one
    plain line, level and logger named."""
    server = start_http_server([*indexed_vault.serve_args(), "--no-token"])
    try:
        wait_until_listening(server)
        assert post(server).status_code == 200
    finally:
        stop(server)
    assert server.process.stderr is not None
    lines = server.process.stderr.read().decode().splitlines()
    access = [line for line in lines if '"POST /mcp HTTP/1.1" 200' in line]
    assert len(access) == 1, lines
    assert " INFO uvicorn.access: 127.0.0.1:" in access[0]
