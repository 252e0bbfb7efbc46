"""BM25's top k on PostgreSQL from stored block bounds (bm25_blocks.py) against the ranking before
it (MaxScore whenever it applies, else every posting scored) and every posting scored.

Run: PYTHONPATH=src:bench .venv/bin/python bench/postgres_bm25_blocks.py --url URL [--rounds 5]
     [--hybrid 200]
URL is a running server holding the 130k-chunk PowerShell index (``bench/postgres_scale.py
--keep DIR`` builds it; migration pg003 adds the bounds on first open). On one connection,
query by query and interleaved (a loaded machine slows each variant alike), ``fts.bm25(...,
limit 30)`` of bench/query_speed.py's twenty questions three ways: ``full`` (every posting),
``before`` (MaxScore tried on every query, the full ranking when it gives up: the code before
the blocks) and ``now`` (MaxScore only around a very rare word, else the blocks). The three must
return the same rows with the same scores, to the last bit; the bench stops on any difference.
Besides wall-clock p50/p95 it reports the CPU each variant cost per search, in the server's
backend (from /proc) and in this process: on a shared machine the CPU is the steadier figure.
Then ``--hybrid N`` warm hybrid searches through ``Vault.search``, before and now interleaved.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpora import powershell_corpus
from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation
from vaultctx.index.postgres import bm25_blocks, bm25_topk, fts
from vaultctx.search.fts_query import build_fts_query

WEIGHTS = (1.0, 0.5, 0.3)  # what hybrid search passes
_TOP, _BLOCKS, _SHARE = bm25_topk.top, bm25_blocks.top, fts._MAXSCORE_SHARE


def _never(*args: Any, **kwargs: Any) -> None:
    return None


def _variant(name: str) -> None:
    bm25_topk.top = _never if name == "full" else _TOP  # type: ignore[assignment]
    bm25_blocks.top = _BLOCKS if name == "now" else _never  # type: ignore[assignment]
    fts._MAXSCORE_SHARE = _SHARE if name == "now" else 1.0


class _Cpu:
    """CPU seconds of the server backend serving ``db`` and of this process."""

    def __init__(self, db: Any) -> None:
        self.stat = Path(f"/proc/{db.run('SELECT pg_backend_pid()').fetchone()[0]}/stat")
        self.tick = os.sysconf("SC_CLK_TCK")

    def now(self) -> tuple[float, float]:
        fields = self.stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.tick, time.process_time()


def _report(label: str, times: list[float], server: float, client: float) -> None:
    print(
        f"{label}: p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms; "
        f"CPU per search: server {server * 1000 / len(times):.1f} ms, "
        f"client {client * 1000 / len(times):.1f} ms ({len(times)} searches)",
        flush=True,
    )


def _measure(
    names: list[str], items: list[str], rounds: int, call: Callable[[str], Any], cpu: _Cpu
) -> dict[tuple[str, str], list[float]]:
    """Each item under each variant in turn, ``rounds`` times; answers must agree."""
    times: dict[str, list[float]] = {n: [] for n in names}
    spent = {n: [0.0, 0.0] for n in names}
    per_item: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for item in items:
            answers = []
            for name in names:
                _variant(name)
                (s0, c0), started = cpu.now(), time.perf_counter()
                answers.append(call(item))
                elapsed = (time.perf_counter() - started) * 1000
                s1, c1 = cpu.now()
                times[name].append(elapsed)
                per_item.setdefault((name, item), []).append(elapsed)
                spent[name][0] += s1 - s0
                spent[name][1] += c1 - c0
            if any(a != answers[0] for a in answers[1:]):
                raise SystemExit(f"different answers for {item!r}")
    _variant("now")
    for name in names:
        _report(name, times[name], *spent[name])
    return per_item


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hybrid", type=int, default=200)
    args = parser.parse_args()
    root = powershell_corpus()
    vault = Vault(root, db=PostgresLocation(args.url, str(root.resolve())))
    db: Any = vault.retriever().db
    cpu = _Cpu(db)
    questions = list(dict.fromkeys(QUERY_WORDS))
    matches = {q: str(build_fts_query(q)) for q in questions}
    print(f"load average {os.getloadavg()[0]:.1f}; BM25 top 30, {args.rounds} rounds", flush=True)
    names = ["full", "before", "now"]
    per = _measure(
        names, questions, args.rounds, lambda q: fts.bm25(db, matches[q], 30, WEIGHTS), cpu
    )
    for q in questions:
        cells = " ".join(f"{statistics.median(per[(n, q)]):8.1f}" for n in names)
        print(f"  {q:40s} {cells}", flush=True)
    if args.hybrid:
        for q in questions:
            vault.search(q, limit=10, mode="hybrid")  # warm caches and prepared statements
        order = [questions[i % len(questions)] for i in range(args.hybrid)]

        def hybrid(q: str) -> Any:
            return [(r.citation, r.score) for r in vault.search(q, limit=10).results]

        print(f"hybrid, {args.hybrid} searches each, interleaved", flush=True)
        _measure(["before", "now"], order, 1, hybrid, cpu)
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    vault.close()


if __name__ == "__main__":
    main()
