"""An indexed copy of the example vault; helpers to run ``vaultctx serve`` as a real process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp_types import CallToolResult, TextContent

from mcp import Client
from tests.conftest import REPO, copy_example_vault
from vaultctx.api import Vault
from vaultctx.mcp.server import build_server

# Written next to the vault, outside it: no tool may ever show this text.
OUTSIDE_SENTINEL = "OUTSIDE-THE-VAULT-7f3a9c"


@dataclass(frozen=True)
class IndexedVault:
    vault: Path
    db: Path
    outside: Path  # a folder beside the vault holding a file no client may read

    def handle(self) -> Vault:
        return Vault(self.vault, db=self.db)

    def serve_args(self) -> list[str]:
        return ["serve", "--vault", str(self.vault), "--db", str(self.db)]


@pytest.fixture(scope="module")
def indexed_vault(tmp_path_factory: pytest.TempPathFactory) -> IndexedVault:
    root = tmp_path_factory.mktemp("mcp")
    vault = root / "vault"
    copy_example_vault(vault)
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n{OUTSIDE_SENTINEL}\n", encoding="utf-8")
    (vault / "escape.md").symlink_to(outside / "secret.md")
    (vault / "linked-outside").symlink_to(outside, target_is_directory=True)
    (vault / ".obsidian" / "leak.md").write_text(f"{OUTSIDE_SENTINEL}\n", encoding="utf-8")
    db = root / "index.db"
    handle = Vault(vault, db=db)
    handle.index(fast=True)
    handle.close()
    return IndexedVault(vault, db, outside)


# One in-process SDK client per test module, over the indexed example vault.
@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def client(indexed_vault: IndexedVault) -> AsyncIterator[Client]:
    async with Client(build_server(indexed_vault.handle()), mode="legacy") as connected:
        await wait_for_models(connected)
        yield connected


# The notice a hybrid search carries while the server's models are still loading.
LOADING_NOTICE = "vector models are still loading"
WARM_UP_TIMEOUT_S = 120.0


async def wait_for_models(client: Client) -> None:
    """Until searches rank by meaning: tests of hybrid rankings must not see the keyword-only
    answers a server gives while it warms up (server.VaultService.call_soon)."""
    with anyio.fail_after(WARM_UP_TIMEOUT_S):
        while True:
            result = await client.call_tool("obsidian_search", {"query": "warm", "limit": 1})
            data = result.structured_content
            if not (isinstance(data, dict) and any(LOADING_NOTICE in n for n in data["notices"])):
                return
            await anyio.sleep(0.1)


def tool_error(result: CallToolResult) -> dict[str, str]:
    """The ``{error, suggestion}`` of a failed call; fails unless it is exactly that.

    It is JSON text and never ``structuredContent``, which clients validate against the tool's
    success schema even for errors."""
    assert result.is_error and result.structured_content is None
    [block] = result.content
    assert isinstance(block, TextContent)
    error = json.loads(block.text)
    assert set(error) == {"error", "suggestion"} and all(error.values())
    return {str(key): str(value) for key, value in error.items()}


def subprocess_env() -> dict[str, str]:
    """The environment for ``python -m vaultctx`` from this checkout (not yet pip-installed)."""
    env = dict(os.environ)
    src = str(REPO / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    env.pop("VAULTCTX_TOKEN", None)
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def start_http_server(args: list[str], env: dict[str, str] | None = None) -> HttpServer:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", *args, "--http", "--port", str(port)],
        env=env or subprocess_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return HttpServer(process, port)


def wait_until_listening(server: HttpServer, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            stderr = server.process.stderr.read() if server.process.stderr else b""
            raise AssertionError(f"server exited early: {stderr.decode(errors='replace')}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", server.port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"server did not listen on port {server.port} within {timeout} s")


def stop(server: HttpServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
