"""Query latency on the PowerShell corpus: warm in-process and a cold CLI process.

Run: .venv/bin/python bench/query_speed.py [--db PATH] [--queries 200] [--vault DIR]
The whole corpus is 130k chunks; the issue's target assumed ~50k, so pass --vault with the
first 5,450 files (sorted paths: ~50k chunks) to measure at that size. Uses an existing index
when --db points at one, otherwise builds pass 1 first. Prints one line per figure: p50/p95
per mode, which vector tables answered, and the wall and CPU time of cold `vaultctx search`
processes.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from corpora import CACHE, powershell_corpus
from stats import percentile
from vaultctx.api import Vault
from vaultctx.search.graph import load_link_graph

VAULTCTX = str(Path(sys.executable).with_name("vaultctx"))
QUERY_WORDS = [
    "Get-ADUser filter by department",
    "configure DNS server forwarders",
    "SQLITE_LOCKED",
    "remove a printer driver",
    "Hyper-V virtual switch",
    "-ErrorAction SilentlyContinue",
    "set network adapter VLAN",
    "BitLocker recovery key backup",
    "schedule a task at logon",
    "New-NetFirewallRule allow port",
    "storage spaces tiering",
    "list installed Windows features",
    "export certificate with private key",
    "RDS session host collection",
    "DHCP scope options",
    "Get-WinEvent filter hashtable",
    "iSCSI target portal",
    "SMB share permissions",
    "how do I restart a service remotely",
    "Windows Update for Business deferral",
]


def measure_warm(
    vault: Vault, queries: list[str], configs: dict[str, dict[str, Any]], suffix: str
) -> None:
    for label, options in configs.items():
        vault.search(queries[0], **options)  # warm caches, models and the link graph
        times = []
        for query in queries:
            started = time.perf_counter()
            vault.search(query, limit=10, **options)
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"warm {label}{suffix} p50: {statistics.median(times):.1f} ms, "
            f"p95: {percentile(times, 0.95):.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, default=CACHE / "powershell-query.db")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--vault", type=Path, help="another vault, e.g. a ~50k-chunk part of the corpus"
    )
    args = parser.parse_args()
    corpus = args.vault or powershell_corpus()
    vault = Vault(corpus, db=args.db)
    if not args.db.exists():
        vault.index(fast=True)
    status = vault.status()
    print(f"index: {status.chunks} chunks, quality vectors {status.quality_vectors}")
    rng = random.Random(3)
    queries = [rng.choice(QUERY_WORDS) for _ in range(args.queries)]
    sources = [s.table for s in vault.retriever().vector_sources()]
    print(f"vector tables queried: {', '.join(sources) or 'none'}")
    configs: dict[str, dict[str, Any]] = {
        "bm25": {"mode": "bm25"},
        "vector": {"mode": "vector"},
        "hybrid": {"mode": "hybrid"},
        "hybrid --graph": {"graph": True},
        "hybrid --graph --depth 2": {"graph": True, "depth": 2},
    }
    vault.retriever().memory_after = None  # first the path of one-shot processes: sqlite-vec
    measure_warm(vault, queries, configs, "")
    # What the MCP server and `search --batch` do: vectors ranked from RAM.
    started = time.perf_counter()
    vault.retriever().hold_vectors_in_memory(wait=True)
    print(f"vectors loaded into memory in {(time.perf_counter() - started) * 1000:.0f} ms")
    measure_warm(vault, queries, configs, " (vectors in memory)")
    started = time.perf_counter()
    graph = load_link_graph(vault.retriever().db)
    print(
        f"link graph: {len(graph.notes)} notes, {len(graph.links)} links resolved in "
        f"{(time.perf_counter() - started) * 1000:.0f} ms (once per index change)"
    )
    vault.close()
    for mode in ("hybrid", "bm25"):
        cold_search(corpus, args.db, mode)


def cold_search(corpus: Path, db: Path, mode: str, runs: int = 10) -> None:
    """Wall and CPU time of new `vaultctx search` processes, after one untimed run (file cache)."""
    walls, cpus = [], []
    where = ["--vault", str(corpus), "--db", str(db)]
    for query in QUERY_WORDS[: runs + 1]:
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            [VAULTCTX, "search", *where, "--json", "--mode", mode, "--", query],
            check=True,
            capture_output=True,
        )
        walls.append(time.perf_counter() - started)
        done = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(done.ru_utime + done.ru_stime - cpu.ru_utime - cpu.ru_stime)
    walls, cpus = walls[1:], cpus[1:]
    print(
        f"cold `vaultctx search --mode {mode}` process: median {statistics.median(walls):.2f} s "
        f"(min {min(walls):.2f} s, CPU median {statistics.median(cpus):.2f} s, {runs} runs, "
        f"load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
