"""A real ``serve --http`` for an indexed copy of the example vault, and CLI processes beside it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_example_vault
from tests.mcp.conftest import HttpServer, start_http_server, stop, subprocess_env
from vaultctx.api import Vault
from vaultctx.loopback import server_link

TOKEN = "cli-forwarding-test-token"
ANSWERED = "vaultctx: answered by the server at "


@dataclass(frozen=True)
class Served:
    vault: Path
    db: Path
    server: HttpServer

    def args(self, *args: str) -> list[str]:
        return [*args, "--vault", str(self.vault), "--db", str(self.db)]


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    forwarded: bool


def cli_env(**extra: str) -> dict[str, str]:
    env = subprocess_env()
    for name in ("VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN", "VAULT_PATH", "DB_PATH", "COLUMNS"):
        env.pop(name, None)
    env["VAULTCTX_VERBOSE"] = "1"
    env.update(extra)
    return env


def vaultctx(args: list[str], *, in_process: bool = False, timeout: float = 180, **env: str) -> Run:
    """``python -m vaultctx ARGS`` as a user runs it; ``in_process`` turns the server off."""
    if in_process:
        env["VAULTCTX_NO_SERVER"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *args],
        capture_output=True,
        text=True,
        env=cli_env(**env),
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    lines = done.stderr.splitlines(keepends=True)
    notes = [line for line in lines if line.startswith("vaultctx: ")]
    rest = "".join(line for line in lines if not line.startswith("vaultctx: "))
    forwarded = any(line.startswith(ANSWERED) for line in notes)
    return Run(done.returncode, done.stdout, rest, forwarded)


def comparable(output: str) -> str:
    """The output without what differs between any two runs: the time a search took; and the
    last digits of scores (the server ranks vectors from memory, a process with sqlite-vec)."""
    output = re.sub(r"\d+(\.\d+)?((\x1b\[[0-9;]*m)* ms)", r"N\2", output)
    try:
        data = json.loads(output)
    except ValueError:
        return re.sub(r"\d\.\d{4} · bm25", "S · bm25", output)
    return json.dumps(_rounded(data), sort_keys=True)


def _rounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items() if k not in ("took_ms",)}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def wait_for_record(db: Path, server: HttpServer, timeout: float = 120) -> None:
    """Until the server has recorded itself and answers a forwarded command (its warm-up done)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            stderr = server.process.stderr.read() if server.process.stderr else b""
            raise AssertionError(f"server exited early: {stderr.decode(errors='replace')}")
        if server_link.find_server(db, {}) is not None:
            return
        time.sleep(0.1)
    raise AssertionError("the server never recorded itself")


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("cli-server")
    vault = copy_example_vault(root / "vault")
    db = root / "index.db"
    handle = Vault(vault, db=db)
    handle.index(fast=True)
    handle.close()
    env = subprocess_env()
    env["VAULTCTX_TOKEN"] = TOKEN
    server = start_http_server(["serve", "--vault", str(vault), "--db", str(db)], env)
    try:
        wait_for_record(db, server)
        yield Served(vault, db, server)
    finally:
        stop(server)
