"""The Obsidian plugin's way in on Linux and macOS: ``vaultctx obsidian connect`` starting the
engine (cold) and finding it (warm), then searches over the engine's plugin socket as the
plugin sends them (HTTP on the Unix socket), the first one separately (docs/obsidian.md).

Indexes the repo's example vault into a temporary folder, with a private runtime folder, so the
user's own engine is never touched; the engine is stopped at the end.

    PYTHONPATH=src .venv/bin/python bench/plugin_socket.py [--rounds 20] [--query Q]

Prints wall milliseconds (median, min) per figure and the load average.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=120)
        self.unix_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def search_ms(found: dict[str, str], query: str) -> float:
    started = time.perf_counter()
    connection = UnixHTTPConnection(found["socket"])
    body = json.dumps({"query": query})
    headers = {"Content-Type": "application/json"}
    connection.request("POST", f"{found['base']}/vaultctx/obsidian/search", body, headers)
    response = connection.getresponse()
    assert response.status == 200 and json.loads(response.read())["results"]
    connection.close()
    return (time.perf_counter() - started) * 1000


def vaultctx(env: dict[str, str], *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *args], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return (time.perf_counter() - started) * 1000, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--query", default="WAL mode readers writer")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vx-plugin-bench-"))
    vault, db = root / "vault", root / "index.db"
    shutil.copytree(REPO / "examples" / "vault", vault)
    env = {**os.environ, "VAULTCTX_RUNTIME_DIR": str(root / "rt"), "VAULTCTX_ENGINE": "on"}
    env["XDG_STATE_HOME"] = str(root / "state")
    located = ["--vault", str(vault), "--db", str(db)]
    try:
        vaultctx(env, "--no-engine", "index", *located)
        cold, out = vaultctx(env, "obsidian", "connect", *located)
        warm = [vaultctx(env, "obsidian", "connect", *located)[0] for _ in range(3)]
        found = json.loads(out)
        first = search_ms(found, options.query)
        times = [search_ms(found, options.query) for _ in range(options.rounds)]
        print(f"connect, engine started: {cold:.0f} ms")
        print(f"connect, engine running: median {statistics.median(warm):.0f} ms")
        print(f"first search over the socket: {first:.1f} ms")
        print(
            f"search over the socket: median {statistics.median(times):.1f} ms, "
            f"min {min(times):.1f} ms ({options.rounds} rounds)"
        )
        print(f"load average: {os.getloadavg()[0]:.1f}")
    finally:
        vaultctx(env, "engine", "stop")
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
