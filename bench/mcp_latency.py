"""MCP round-trip latency over stdio: what a client waits for (docs/reference.md#integration).

Indexes the Obsidian help vault (173 notes) into a temporary database, starts
``python -m vaultctx serve`` through the official SDK's stdio client, as Claude Code or Codex would,
and times the ``initialize`` handshake (process start to answer; median of ``--spawns`` new
processes), the first search (the model warm-up, started once the handshake is over, may still be
running) and warm ``obsidian_search`` round trips.

    PYTHONPATH=src .venv/bin/python bench/mcp_latency.py [--vault DIR] [--rounds 200] [--spawns 10]

Prints one line per figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from stats import percentile
from vaultctx.api import Vault

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = (REPO / ".." / "shared" / "data" / "obsidian-help" / "en").resolve()
QUERIES = [
    "link to a heading in another note",
    "embed an image",
    "daily notes template",
    "sync end-to-end encryption",
    "graph view filters",
    "canvas cards",
    "search operators path tag",
    "publish custom domain",
    "core plugins list",
    "hotkeys",
    "callouts foldable",
    "properties types date",
    "vault folder move",
    "bases formulas",
    "command palette",
    "backlinks unlinked mentions",
    "workspace layout",
    "footnotes syntax",
    "import from Notion",
    "license commercial use",
]


def server_params(vault: Path, db: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)],
        env=env,
    )


async def initialize_seconds(params: StdioServerParameters) -> float:
    started = time.perf_counter()
    async with Client(params, mode="legacy"):
        return time.perf_counter() - started


async def measure(vault: Path, db: Path, rounds: int, spawns: int) -> dict[str, float]:
    params = server_params(vault, db)
    figures: dict[str, float] = {}
    await initialize_seconds(params)  # warms the OS file cache; not counted
    handshakes = [await initialize_seconds(params) for _ in range(spawns)]
    figures["initialize_median_s"] = statistics.median(handshakes)
    figures["initialize_min_s"] = min(handshakes)
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        figures["initialize_s"] = time.perf_counter() - started
        first = time.perf_counter()
        await client.call_tool("obsidian_search", {"query": QUERIES[0]})
        figures["first_search_ms"] = (time.perf_counter() - first) * 1000
        samples = []
        for index in range(rounds):
            query = QUERIES[index % len(QUERIES)]
            began = time.perf_counter()
            result = await client.call_tool("obsidian_search", {"query": query})
            samples.append((time.perf_counter() - began) * 1000)
            if result.is_error:
                raise SystemExit(f"search failed: {result.content}")
    figures["search_p50_ms"] = statistics.median(samples)
    figures["search_p95_ms"] = percentile(samples, 0.95)
    figures["rounds"] = rounds
    figures["load_average"] = os.getloadavg()[0]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--spawns", type=int, default=10, help="processes timed to initialize")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(options.vault, vault)
        db = Path(scratch) / "index.db"
        began = time.perf_counter()
        Vault(vault, db=db).index(fast=True)
        print(f"index_fast_s {time.perf_counter() - began:.2f}")
        figures = anyio.run(measure, vault, db, options.rounds, options.spawns)
    for name, value in figures.items():
        print(f"{name} {value:.2f}" if name != "rounds" else f"{name} {int(value)}")


if __name__ == "__main__":
    main()
