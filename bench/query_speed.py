"""Query latency on the PowerShell corpus (~50k chunks): warm in-process and a cold CLI process.

Run: .venv/bin/python bench/query_speed.py [--db PATH] [--queries 200]
Uses an existing index of the corpus when --db points at one (e.g. the one bench/index_scale.py
leaves with --keep), otherwise builds pass 1 first. Prints one line per figure: p50/p95 per mode,
which vector tables answered, and the wall time of a cold `vaultctx search` process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from corpora import CACHE, powershell_corpus
from stats import percentile
from vaultctx.api import Vault

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, default=CACHE / "powershell-query.db")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    corpus = powershell_corpus()
    vault = Vault(corpus, db=args.db)
    if not args.db.exists():
        vault.index(fast=True)
    status = vault.status()
    print(f"index: {status.chunks} chunks, quality vectors {status.quality_vectors}")
    rng = random.Random(3)
    queries = [rng.choice(QUERY_WORDS) for _ in range(args.queries)]
    sources = [s.table for s in vault.retriever().vector_sources()]
    print(f"vector tables queried: {', '.join(sources) or 'none'}")
    for mode in ("bm25", "vector", "hybrid"):
        vault.search(queries[0], mode=mode)  # warm caches and models
        times = []
        for query in queries:
            started = time.perf_counter()
            vault.search(query, mode=mode, limit=10)
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"warm {mode} p50: {statistics.median(times):.1f} ms, "
            f"p95: {percentile(times, 0.95):.1f} ms"
        )
    vault.close()
    walls = []
    for query in QUERY_WORDS[:5]:
        started = time.perf_counter()
        subprocess.run(
            [VAULTCTX, "search", query, "--vault", str(corpus), "--db", str(args.db), "--json"],
            check=True,
            capture_output=True,
        )
        walls.append(time.perf_counter() - started)
    print(
        f"cold `vaultctx search` process: median {statistics.median(walls):.2f} s "
        f"(min {min(walls):.2f} s)"
    )


if __name__ == "__main__":
    main()
