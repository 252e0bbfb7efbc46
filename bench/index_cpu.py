"""Full-index CPU and wall time, old tree against new, alternating runs (issue 16, "Index < 20 s").

Run: .venv/bin/python bench/index_cpu.py --old <src of the old tree> [--new <src>] [--runs 3]
     [--vault <folder>] [--workers N] [--files N]

Each run is a real `vaultctx index --fast --full` process on a fresh database, started with
PYTHONPATH set to the old or the new tree's src, in the order old, new, new, old, old, new, ...
so that a busy machine weighs on both alike (on a shared machine the second run of a pair was
seen to be slower, whichever tree it was). CPU time is the process's and its waited-for
children's (the worker processes) user + system time from getrusage: less noisy than wall time
on a shared machine. Prints one line per run (with the load average before it), then one line
per figure: medians of wall and CPU seconds for each tree and their ratio new / old, and the
median phase seconds (wall inside each process, so workers' phases add up to more than the run).
Without --vault, the PowerShell corpus (14,142 files; bench/corpora.py) is indexed. --files N
indexes only the vault's first N markdown files in path order (the scanner's order).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import powershell_corpus

# `python -m vaultctx`, not the venv's `vaultctx` script: that script imports the entry point of
# whichever tree was installed, and each run here must use only the tree on PYTHONPATH.
VAULTCTX = [sys.executable, "-m", "vaultctx"]


def run_once(src: Path, vault: Path, db: Path) -> tuple[float, float, dict[str, float]]:
    """Wall seconds, CPU seconds (with workers) and the phase seconds of one full index."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(src)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [*VAULTCTX, "index", "--vault", str(vault), "--db", str(db), "--json", "--fast", "--full"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"vaultctx index failed ({src}): {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = json.loads(done.stdout)
    return wall, cpu, {k: float(v) for k, v in summary["phase_seconds"].items()}


def copy_first(source: Path, target: Path, count: int) -> None:
    """The first ``count`` markdown files of ``source`` by relative path, copied with their
    folders (the same subset every time, as the indexer orders files by path)."""
    paths = sorted(p.relative_to(source).as_posix() for p in source.rglob("*.md") if p.is_file())
    for rel in paths[:count]:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, target / rel)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="src folder of the old tree")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    parser.add_argument("--runs", type=int, default=3, help="runs per tree")
    parser.add_argument("--vault", type=Path, help="default: the PowerShell corpus")
    parser.add_argument("--workers", type=int, help="index_workers (default: the vault's own)")
    parser.add_argument("--files", type=int, help="only the first N markdown files (path order)")
    args = parser.parse_args()
    source = args.vault or powershell_corpus()
    results: dict[str, list[tuple[float, float, dict[str, float]]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        if args.files is None:
            subprocess.run(["cp", "-r", str(source), str(vault)], check=True)
        else:
            copy_first(source, vault, args.files)
        if args.workers is not None:
            (vault / "vaultctx.toml").write_text(f"index_workers = {args.workers}\n")
        db = Path(tmp) / "index.db"
        for run in range(args.runs):
            order = (("old", args.old), ("new", args.new))
            for name, src in order if run % 2 == 0 else order[::-1]:
                load = os.getloadavg()[0]
                wall, cpu, phases = run_once(src.resolve(), vault, db)
                results[name].append((wall, cpu, phases))
                print(f"run {run + 1} {name}: wall {wall:.2f} s, cpu {cpu:.2f} s, load {load:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    medians = {}
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        medians[name] = (wall, cpu)
        print(f"{name}: median wall {wall:.2f} s, median cpu {cpu:.2f} s")
        for phase in sorted(runs[0][2]):
            seconds = statistics.median(r[2].get(phase, 0.0) for r in runs)
            print(f"{name} phase {phase}: {seconds:.2f} s")
    print(f"ratio new/old: wall {medians['new'][0] / medians['old'][0]:.3f}")
    print(f"ratio new/old: cpu {medians['new'][1] / medians['old'][1]:.3f}")


if __name__ == "__main__":
    main()
