"""What a client of ``vaultctx serve`` (stdio) waits for and what the server costs in memory.

Each run spawns ``python -m vaultctx serve`` and speaks raw JSON-RPC on its pipes (no SDK in
this process, so the figures are the server's alone), then records:

- spawn → ``initialize`` answered;
- the first ``obsidian_search`` sent right after ``notifications/initialized`` (the model warm-up
  has only just started), and whether it came back keyword-only ("vector models are still
  loading");
- seconds until a search is no longer keyword-only (the models are loaded);
- peak RSS (``VmHWM`` of ``/proc/<pid>/status``) after a burst of searches, a pause for the
  in-memory vector matrices (``search/vector_memory.py``) and another burst;
- whether Kiwi (``kiwipiepy``) is mapped into the process (``/proc/<pid>/maps``).

With ``--src`` given twice (e.g. a clean copy of main and this tree) the trees alternate run by
run, so both see the same machine load; medians are printed per tree, one line per figure, with
the load average around them.

    PYTHONPATH=src .venv/bin/python bench/serve_memory.py --vault DIR --db PATH
        [--src OLD/src --src NEW/src] [--runs 5] [--query TEXT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "how do I get the list of running services",
    "Get-ChildItem recurse filter",
    "rotate the api keys",
    "set execution policy remote signed",
    "firewall rule for inbound port",
    "export users to csv",
]
LOADING = "vector models are still loading"
WARM_TIMEOUT_S = 300.0


class Server:
    """One ``vaultctx serve`` process fed JSON-RPC lines."""

    def __init__(self, src: Path, vault: Path, db: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(src)
        for name in ("VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN", "VAULTCTX_HOOK_ACTIVE"):
            env.pop(name, None)
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit(f"the server exited during {method}")
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise SystemExit(f"{method} failed: {answer['error']}")
                return answer

    def search(self, query: str) -> list[str]:
        """The notices of one hybrid search."""
        arguments = {"query": query, "limit": 5}
        answer = self.request("tools/call", {"name": "obsidian_search", "arguments": arguments})
        result = answer["result"]
        if result.get("isError"):
            raise SystemExit(f"search failed: {result['content']}")
        return list(result["structuredContent"]["notices"])

    def proc(self, name: str) -> str:
        return Path(f"/proc/{self.process.pid}/{name}").read_text()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def one_run(src: Path, vault: Path, db: Path) -> dict[str, float]:
    server = Server(src, vault, db)
    try:
        server.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        initialized = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        first_notices = server.search(QUERIES[0])
        searched = time.perf_counter()
        notices = first_notices
        while any(LOADING in notice for notice in notices):
            if time.perf_counter() - searched > WARM_TIMEOUT_S:
                raise SystemExit("the models did not finish loading")
            time.sleep(0.05)
            notices = server.search(QUERIES[0])
        warm = time.perf_counter()
        for query in QUERIES:
            server.search(query)
        time.sleep(5)  # the in-memory vector matrices load in the background
        for query in QUERIES:
            server.search(query)
        status = server.proc("status")
        peak_kb = next(int(line.split()[1]) for line in status.splitlines() if "VmHWM" in line)
        kiwi = "kiwipiepy" in server.proc("maps")
    finally:
        server.close()
    return {
        "spawn -> initialize answered (ms)": (initialized - server.started) * 1000,
        "initialized -> first search answered (ms)": (searched - initialized) * 1000,
        "first search keyword-only (share of runs)": float(
            any(LOADING in n for n in first_notices)
        ),
        "initialized -> models loaded (s)": warm - initialized,
        "peak RSS (MB)": peak_kb / 1024,
        "Kiwi mapped (share of runs)": float(kiwi),
    }


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True, help="an existing index of --vault")
    parser.add_argument("--src", type=Path, action="append", help="source tree (repeatable)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sources = [path.resolve() for path in (args.src or [REPO / "src"])]
    vault, db = args.vault.resolve(), args.db.resolve()
    print(f"load average before: {load()}", flush=True)
    for src in sources:
        one_run(src, vault, db)  # warms the OS file cache; not counted
    samples: dict[Path, list[dict[str, float]]] = {src: [] for src in sources}
    for run in range(args.runs):
        for src in sources:
            figures = one_run(src, vault, db)
            samples[src].append(figures)
            shown = ", ".join(f"{name} {value:.0f}" for name, value in figures.items())
            print(f"run {run + 1} {src}: {shown} (load {load()})", flush=True)
    for src in sources:
        for name in samples[src][0]:
            values = [figures[name] for figures in samples[src]]
            print(
                f"{src}: {name}: median {statistics.median(values):.2f}, "
                f"min {min(values):.2f}, max {max(values):.2f} ({len(values)} runs)"
            )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
