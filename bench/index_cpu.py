"""Full-index CPU and wall time, old tree against new, alternating runs (issue 16, "Index < 20 s").

Run: .venv/bin/python bench/index_cpu.py --old <src of the old tree> [--new <src>] [--runs 3]
     [--vault <folder>] [--workers N] [--files N]

Each run is a real `vaultctx index --fast --full` process on a fresh database, started with
PYTHONPATH set to the old or the new tree's src, in the order old, new, new, old, old, new, ...
so that a busy machine weighs on both alike (on a shared machine the second run of a pair was
seen to be slower, whichever tree it was). CPU time is the process's and its waited-for
children's (the worker processes) user + system time from wait4: less noisy than wall time
on a shared machine. Memory: the run's peak RSS of its largest process (wait4's ru_maxrss: the
indexer or one worker) and the most the indexer and its workers held at once (their VmRSS summed,
sampled every 0.25 s). Prints one line per run (with the load average before it), then one line
per figure: medians of wall and CPU seconds and of both memory figures for each tree and their
ratio new / old, and the median phase seconds (wall inside each process, so workers' phases
add up to more than the run).
Without --vault, the PowerShell corpus (14,142 files; bench/corpora.py) is indexed. --files N
indexes only the vault's first N markdown files in path order (the scanner's order).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from corpora import powershell_corpus

# `python -m vaultctx`, not the venv's `vaultctx` script: that script imports the entry point of
# whichever tree was installed, and each run here must use only the tree on PYTHONPATH.
VAULTCTX = [sys.executable, "-m", "vaultctx"]
RSS_POLL_SECONDS = 0.25


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # seconds of user + system time, the workers' included
    peak_rss: float  # MB: the largest process's peak (the indexer or a worker)
    peak_total_rss: float  # MB: the most the indexer and its workers held at once (sampled)
    phases: dict[str, float]


def run_once(src: Path, vault: Path, db: Path) -> Run:
    """One full index: its times, memory and phase seconds."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [*VAULTCTX, "index", "--vault", str(vault), "--db", str(db), "--json", "--fast"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen([*command, "--full"], stdout=out, stderr=err, env=env)
        total_rss = 0
        while True:
            # wait4, not Popen.wait: its usage is this run's alone (the process and the workers
            # it waited for), where RUSAGE_CHILDREN's peak RSS would span every run so far.
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            total_rss = max(total_rss, tree_rss_kb(process.pid))
            time.sleep(RSS_POLL_SECONDS)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise SystemExit(f"vaultctx index failed ({src}): {stderr}")
    phases = {k: float(v) for k, v in json.loads(stdout)["phase_seconds"].items()}
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, cpu, usage.ru_maxrss / 1024, total_rss / 1024, phases)


def tree_rss_kb(root: int) -> int:
    """The resident memory of ``root`` and its descendants now, in KB (Linux /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue  # gone meanwhile
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss[int(entry.name)] = int(line.split()[1])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(rss.get(pid, 0) for pid in tree)


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
    results: dict[str, list[Run]] = {"old": [], "new": []}
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
                done = run_once(src.resolve(), vault, db)
                results[name].append(done)
                print(
                    f"run {run + 1} {name}: wall {done.wall:.2f} s, cpu {done.cpu:.2f} s, "
                    f"peak RSS {done.peak_rss:.0f} MB (largest process), "
                    f"{done.peak_total_rss:.0f} MB (all at once), load {load:.2f}",
                    flush=True,
                )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    medians = {}
    for name, runs in results.items():
        wall = statistics.median(r.wall for r in runs)
        cpu = statistics.median(r.cpu for r in runs)
        rss = statistics.median(r.peak_rss for r in runs)
        total_rss = statistics.median(r.peak_total_rss for r in runs)
        medians[name] = (wall, cpu, rss, total_rss)
        print(
            f"{name}: median wall {wall:.2f} s, median cpu {cpu:.2f} s, "
            f"median peak RSS {rss:.0f} MB (largest process), {total_rss:.0f} MB (all at once)"
        )
        for phase in sorted(runs[0].phases):
            seconds = statistics.median(r.phases.get(phase, 0.0) for r in runs)
            print(f"{name} phase {phase}: {seconds:.2f} s")
    print(f"ratio new/old: wall {medians['new'][0] / medians['old'][0]:.3f}")
    print(f"ratio new/old: cpu {medians['new'][1] / medians['old'][1]:.3f}")
    print(f"ratio new/old: peak RSS {medians['new'][2] / medians['old'][2]:.3f}")
    print(f"ratio new/old: peak RSS all at once {medians['new'][3] / medians['old'][3]:.3f}")


if __name__ == "__main__":
    main()
