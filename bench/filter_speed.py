"""Filtered search (docs/reference.md#filters) on real notes: latency with and without filters,
and whether `limit`
still holds.

Run: .venv/bin/python bench/filter_speed.py [--db PATH] [--queries 60]
The vault is the winserver2022-ps folder of the PowerShell docs (3,532 notes, one folder per
module, front matter with `Module Name` and `title`); the first run builds a pass-1 index. Each
query runs unfiltered and under each filter, limit 10, one result per note. "full" counts queries
that got all 10 results; "post-filter" is what filtering the unfiltered top 30 afterwards would
have returned, the approach filters must beat.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path
from typing import Any

from corpora import CACHE, powershell_corpus
from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault
from vaultctx.search.filters import Filters

LIMIT = 10
FILTERS: dict[str, dict[str, Any]] = {
    "none": {},
    "folder NetAdapter": {"folder": "NetAdapter"},
    "folder Hyper-V": {"folder": "Hyper-V"},
    "where Module Name = DnsServer": {"where": ["Module Name = DnsServer"]},
    "where title ~ set-": {"where": ["title ~ set-"]},
    "since 2000-01-01 (every note)": {"since": "2000-01-01"},
}


def allowed_paths(vault: Vault, options: dict[str, Any]) -> set[str] | None:
    if not options:
        return None
    listing = vault.list_notes(Filters(**options), limit=100_000)
    return {note.path for note in listing.notes}


def run(vault: Vault, queries: list[str], mode: str, name: str, options: dict[str, Any]) -> str:
    search_filter = Filters(**options)
    allowed = allowed_paths(vault, options)
    timings, full, post_full, post_counts = [], 0, 0, []
    for query in queries:
        started = time.perf_counter()
        response = vault.search(
            query, limit=LIMIT, notes=True, mode=mode, max_tokens=10**9, filters=search_filter
        )  # type: ignore[arg-type]
        timings.append((time.perf_counter() - started) * 1000)
        paths = [result.file_path for result in response.results]
        assert allowed is None or set(paths) <= allowed, "a result outside the filter"
        full += len(paths) == LIMIT
        if allowed is not None:
            top = vault.search(query, limit=30, notes=True, mode=mode, max_tokens=10**9)  # type: ignore[arg-type]
            kept = [r.file_path for r in top.results if r.file_path in allowed][:LIMIT]
            post_counts.append(len(kept))
            post_full += len(kept) == LIMIT
    matching = "all" if allowed is None else str(len(allowed))
    line = (
        f"{mode:6} {name:30} notes {matching:>4}  p50 {statistics.median(timings):6.1f} ms  "
        f"p95 {percentile(timings, 0.95):6.1f} ms  full {full}/{len(queries)}"
    )
    if post_counts:
        line += (
            f"  post-filter: full {post_full}/{len(queries)}, "
            f"mean {statistics.mean(post_counts):.1f} results"
        )
    return line


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, default=CACHE / "filters-winserver2022.db")
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args()
    folder = powershell_corpus() / "windows-powershell-docs" / "docset" / "winserver2022-ps"
    vault = Vault(folder, db=args.db)
    started = time.perf_counter()
    vault.index(fast=True)
    status = vault.status()
    print(
        f"index: {status.files} notes, {status.chunks} chunks, {status.vectors} vectors "
        f"(ready in {time.perf_counter() - started:.1f} s; cached when unchanged)"
    )
    rng = random.Random(5)
    queries = [rng.choice(QUERY_WORDS) for _ in range(args.queries)]
    for mode in ("bm25", "vector", "hybrid"):
        vault.search("warm up", mode=mode)  # type: ignore[arg-type]
        for name, options in FILTERS.items():
            print(run(vault, queries, mode, name, options), flush=True)
    vault.close()


if __name__ == "__main__":
    main()
