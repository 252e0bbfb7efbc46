"""`vaultctx serve --http` serves the Obsidian plugin's routes too (the server a user may already
run for their MCP clients), behind the same guard as on `vaultctx ui`."""

from __future__ import annotations

import http.client
import json
import secrets
from collections.abc import Iterator

import pytest

from tests.conftest import copy_example_vault
from tests.mcp.conftest import (
    HttpServer,
    start_http_server,
    stop,
    subprocess_env,
    wait_until_listening,
)
from vaultctx.api import Vault

TOKEN = secrets.token_urlsafe(32)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("serve-plugin")
    vault, db = copy_example_vault(root / "vault"), root / "index.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    env = {**subprocess_env(), "VAULTCTX_TOKEN": TOKEN, "XDG_DATA_HOME": str(root / "data")}
    args = ["serve", "--vault", str(vault), "--db", str(db)]
    server = start_http_server(args, env=env)
    try:
        wait_until_listening(server, timeout=120)
        yield server
    finally:
        stop(server)


def post(
    server: HttpServer, action: str, body: object, headers: dict[str, str]
) -> tuple[int, dict[str, object]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    sent = {"Host": f"127.0.0.1:{server.port}", "Content-Type": "application/json", **headers}
    try:
        connection.request(
            "POST", f"/vaultctx/obsidian/{action}", body=json.dumps(body), headers=sent
        )
        response = connection.getresponse()
        text = response.read().decode()
        return response.status, json.loads(text) if text.startswith("{") else {}
    finally:
        connection.close()


def test_the_plugin_searches_through_serve_http(served: HttpServer) -> None:
    obsidian = {"Authorization": f"Bearer {TOKEN}", "Origin": "app://obsidian.md"}
    status, data = post(served, "status", {}, obsidian)
    assert status == 200 and data["indexed"] is True
    status, data = post(served, "search", {"query": "WAL mode readers"}, obsidian)
    assert status == 200, data
    results = data["results"]
    assert isinstance(results, list) and results
    assert post(served, "status", {}, {})[0] == 401
    foreign = {**obsidian, "Origin": f"http://127.0.0.1:{served.port}"}
    assert post(served, "status", {}, foreign)[0] == 403
