"""What one more vault costs a ``serve --http --vaults FILE`` process in memory.

Copies a vault (the bundled example vault by default) ``max(--vaults)`` times, indexes each copy
into its own SQLite file once, then for each count in ``--vaults`` starts one server serving that
many copies (loopback, one token per vault from the environment) and, vault after vault, speaks
raw JSON-RPC to it (``initialize``, ``notifications/initialized``, hybrid searches until none is
keyword-only, a pause for the in-memory vectors, more searches). It prints the server's RSS
(``VmRSS`` of ``/proc/<pid>/status``) once listening and after each vault is warm, and its peak
(``VmHWM``), so the cost of a vault is the difference between two lines. Count 0 is the
baseline: the first copy served by a single-vault ``serve --http``.

    PYTHONPATH=src .venv/bin/python bench/multi_vault_memory.py [--vault DIR] [--vaults 0 1 3]
        [--fast]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from http_concurrency import HEADERS, LOADING, PROTOCOL, _free_port, _message

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "vault"
QUERIES = ["reciprocal rank fusion", "weekly review", "how to take notes", "project plan"]
WARM_TIMEOUT_S = 300.0


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _token(index: int) -> str:
    return f"{index:02d}" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0" * 2


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field} for {pid}")


def warm_vault(url: str, token: str) -> float:
    """Seconds from the first search until searches rank by meaning."""
    headers = {**HEADERS, "authorization": f"Bearer {token}"}
    with httpx2.Client(headers=headers, timeout=120.0) as http:
        client = {"name": "bench", "version": "0"}
        params = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
        init = http.post(url, json=initialize)
        init.raise_for_status()
        http.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        http.headers["mcp-protocol-version"] = PROTOCOL
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        started = time.monotonic()

        def search(query: str, ident: int) -> list[str]:
            arguments = {"query": query, "limit": 5}
            message = {"jsonrpc": "2.0", "id": ident, "method": "tools/call"}
            message["params"] = {"name": "obsidian_search", "arguments": arguments}
            result = _message(http.post(url, json=message))["result"]
            if result.get("isError"):
                raise SystemExit(f"search failed: {result['content']}")
            return list(result["structuredContent"]["notices"])

        ident = 2
        while any(LOADING in notice for notice in search(QUERIES[0], ident)):
            if time.monotonic() - started > WARM_TIMEOUT_S:
                raise SystemExit("the models did not finish loading")
            ident += 1
            time.sleep(0.1)
        warm = time.monotonic() - started
        for query in QUERIES:
            ident += 1
            search(query, ident)
        time.sleep(5)  # the in-memory vector matrices load in the background
        for query in QUERIES:
            ident += 1
            search(query, ident)
    return warm


def prepare(source: Path, root: Path, count: int, fast: bool) -> list[tuple[Path, Path]]:
    sys.path.insert(0, str(REPO / "src"))
    from vaultctx.api import Vault

    made = []
    for index in range(count):
        vault, db = root / f"vault{index}", root / f"vault{index}.db"
        shutil.copytree(source, vault, symlinks=True)
        with Vault(vault, db=db) as handle:
            handle.index(fast=fast)
        made.append((vault, db))
    return made


def measure(root: Path, copies: list[tuple[Path, Path]], count: int) -> None:
    """``count`` vaults from one ``--vaults`` server; 0: the first copy from a single-vault
    ``serve --http`` (the baseline one more vault is compared with)."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), XDG_CONFIG_HOME=str(root / "config"))
    env.update({f"BENCH_TOKEN_{i}": _token(i) for i in range(max(count, 1))})
    port = _free_port()
    base = f"http://127.0.0.1:{port}/mcp"
    if count == 0:
        vault, db = copies[0]
        served = ["--vault", str(vault), "--db", str(db), "--token", _token(0)]
        endpoints, label = [(base, _token(0))], "single-vault serve --http"
    else:
        file = root / f"vaults-{count}.toml"
        tables = [
            f'[[vault]]\nname = "v{i}"\nvault = "{vault}"\ndb = "{db}"\n'
            f'token_env = "BENCH_TOKEN_{i}"\n'
            for i, (vault, db) in enumerate(copies[:count])
        ]
        file.write_text("\n".join(tables), encoding="utf-8")
        served = ["--vaults", str(file)]
        endpoints = [(f"{base}/v{i}", _token(i)) for i in range(count)]
        label = f"--vaults, {count} vault(s)"
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "serve", "--http", "--port", str(port), *served],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        print(f"{label}: listening, RSS {_rss_mb(process.pid):.0f} MB", flush=True)
        for i, (url, token) in enumerate(endpoints):
            warm = warm_vault(url, token)
            print(
                f"{label}: vault {i + 1} warm after {warm:.1f} s, "
                f"RSS {_rss_mb(process.pid):.0f} MB",
                flush=True,
            )
        print(f"{label}: peak RSS {_rss_mb(process.pid, 'VmHWM'):.0f} MB", flush=True)
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=EXAMPLE, help="the vault to copy")
    parser.add_argument(
        "--vaults", type=int, nargs="+", default=[0, 1, 3], help="counts (0: single-vault serve)"
    )
    parser.add_argument("--fast", action="store_true", help="index pass 1 only (no transformer)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory(prefix="vaultctx-multi-") as temporary:
        root = Path(temporary)
        copies = prepare(args.vault.resolve(), root, max(*args.vaults, 1), args.fast)
        for count in args.vaults:
            measure(root, copies, count)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
