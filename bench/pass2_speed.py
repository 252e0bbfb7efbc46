"""Pass 2 (transformer vectors) throughput on real chunks, two source trees alternating in one run.

A seeded random sample of PowerShell-docs files (bench/corpora.py) is indexed once with pass 1
only; every round then copies that index and runs the real ``run_quality_pass`` with the bundled
ONNX engine over all of its chunks, once per tree, each in a fresh process (model loaded and warmed
before the clock starts). On a shared machine absolute figures swing with other load, so trees
alternate and the medians' ratio is the figure to read; CPU-seconds and the load average are
printed next to every run.

    PYTHONPATH=src:bench .venv/bin/python bench/pass2_speed.py \
        [--files 48] [--rounds 3] [--tree old=/tmp/old-main/src] [--tree new=src]

Without ``--tree`` it measures this checkout alone. Prints one line per run, then one line per
tree (median chunks/s wall and per CPU-second) and, for two trees, the ratio of the last to the
first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from corpora import CACHE, REPO, powershell_corpus

# Run in the tree under test: open the copied index, warm the engine, time the real pass.
RUN_PASS = """
import json, sys, time
from pathlib import Path
from vaultctx.embed.onnx import OnnxEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.quality_pass import run_quality_pass

db = open_index(Path(sys.argv[1]))
embedder = OnnxEmbedder()
embedder.embed(["warm up the session", "and its tokenizer " * 40])
wall, cpu = time.perf_counter(), time.process_time()
report = run_quality_pass(db, embedder)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
db.close()
print(json.dumps({"chunks": report.chunks_embedded, "wall": wall, "cpu": cpu}))
"""


def sample_index(files: int, seed: int) -> Path:
    """A pass-1 index of ``files`` random PowerShell notes, built once and kept in the cache."""
    target = CACHE / f"pass2-speed-{files}-{seed}"
    db = target / "index.db"
    if db.exists():
        return db
    corpus = powershell_corpus()
    notes = sorted(p for p in corpus.rglob("*.md") if p.is_file())
    chosen = random.Random(seed).sample(notes, files)
    vault = target / "vault"
    for note in chosen:
        copy = vault / note.relative_to(corpus)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(note, copy)
    from vaultctx.api import Vault

    with Vault(vault, db=db) as built:
        built.index(fast=True)
    return db


def run_once(tree: Path, template: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="pass2-speed-") as scratch:
        db = Path(scratch) / "index.db"
        shutil.copyfile(template, db)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [sys.executable, "-c", RUN_PASS, str(db)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=3600,
        )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=48)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[], help="label=path/to/src")
    args = parser.parse_args()
    trees = [
        (label, Path(path).resolve())
        for label, _, path in (spec.partition("=") for spec in args.tree)
    ] or [("this", REPO / "src")]
    template = sample_index(args.files, args.seed)
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
    for round_number in range(1, args.rounds + 1):
        for label, tree in trees:
            load_before = os.getloadavg()[0]
            result = run_once(tree, template)
            runs[label].append(result)
            chunks = result["chunks"]
            print(
                f"round {round_number} {label:6s} {chunks / result['wall']:6.1f} chunks/s "
                f"({chunks / result['cpu']:.1f} per CPU-second; {chunks:.0f} chunks; "
                f"load {load_before:.1f} -> {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    medians: dict[str, float] = {}
    for label, results in runs.items():
        medians[label] = statistics.median(r["chunks"] / r["wall"] for r in results)
        per_cpu = statistics.median(r["chunks"] / r["cpu"] for r in results)
        print(f"median {label:6s} {medians[label]:6.1f} chunks/s ({per_cpu:.1f} per CPU-second)")
    if len(trees) >= 2:
        first, last = trees[0][0], trees[-1][0]
        ratios = [
            (b["chunks"] / b["wall"]) / (a["chunks"] / a["wall"])
            for a, b in zip(runs[first], runs[last], strict=True)
        ]
        print(
            f"ratio {last}/{first}: {medians[last] / medians[first]:.2f} of medians; "
            f"per round {', '.join(f'{r:.2f}' for r in ratios)}"
        )


if __name__ == "__main__":
    main()
