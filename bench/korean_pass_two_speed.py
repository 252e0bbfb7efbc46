"""Time to "meaning search ready" on a Korean vault: every vector pass after pass 1, two trees.

A pass-1 index of each Korean dev vault (the Korean Obsidian Help vault, ko-autorag's corpus;
multilingual_quality.py's loaders) is built once; every run copies it and, in a fresh process of
the tree under test, runs ``Vault.index()`` with the default settings: no note changed, so the
run is the engine loads, pass 2 (the English transformer) and the multilingual pass, i.e. all
the work between "searchable" and "meaning search ready". Prints per run the chunks each pass
embedded, wall and CPU seconds, chunks of the vault per second (wall and per CPU-second) and the
load average; trees alternate, as other load on a shared machine swings the wall figures.

    VAULTCTX_SHARED_DATA=DATA PYTHONPATH=src:bench .venv/bin/python \
        bench/korean_pass_two_speed.py [--vaults ohs-en-to-ko ko-autorag] [--rounds 1] \
        [--tree old=/tmp/old-main/src] [--tree new=src]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from corpora import CACHE, REPO
from multilingual_quality import LOADERS
from vaultctx.api import Vault
from vaultctx.config import Config, Settings

VAULTS = {"ohs-en-to-ko": "ohs", "ko-autorag": "autorag"}

# Run in the tree under test: the full run after pass 1, defaults, clocks around all of it.
RUN = """
import json, os, sys, time
from pathlib import Path
import vaultctx
from vaultctx.api import Vault
from vaultctx.config import Config, Settings

vault = Vault(config=Config(Path(sys.argv[1]), Path(sys.argv[2]), Settings()))
wall, cpu = time.perf_counter(), time.process_time()
report = vault.index()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"tree": vaultctx.__file__, "wall": wall, "cpu": cpu,
                  "quality": report.quality_embedded, "multi": report.multilingual_embedded}))
"""


def pass_one(name: str) -> tuple[Path, Path, int]:
    """(vault folder, its pass-1 index, chunks) for the dev vault ``name``."""
    dev = next(d for d in LOADERS[VAULTS[name]]() if d.name == name)
    db = CACHE / "korean-pass-two" / f"{dev.vault.name}.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    vault = Vault(config=Config(dev.vault, db, Settings()))
    vault.index(fast=True)
    chunks = vault.status().chunks
    vault.close()
    return dev.vault, db, chunks


def run_once(tree: Path, folder: Path, db: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "index.db"
        shutil.copy(db, copy)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(folder), str(copy)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vaults", nargs="+", default=list(VAULTS), choices=list(VAULTS))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tree", action="append", default=[], help="name=path/to/src")
    args = parser.parse_args()
    trees = [tuple(t.split("=", 1)) for t in args.tree] or [("this", str(REPO / "src"))]
    for name in args.vaults:
        folder, db, chunks = pass_one(name)
        for round_ in range(args.rounds):
            for label, tree in trees:
                load = os.getloadavg()[0]
                got = run_once(Path(tree).resolve(), folder, db)
                print(
                    f"{name} round {round_ + 1} {label}: {chunks} chunks, pass 2 embedded "
                    f"{got['quality']:.0f}, multilingual {got['multi']:.0f}; "
                    f"{got['wall']:.1f} s wall, {got['cpu']:.1f} CPU-s; "
                    f"{chunks / got['wall']:.1f} chunks/s, {chunks / got['cpu']:.1f} per CPU-s; "
                    f"load {load:.1f} -> {os.getloadavg()[0]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
