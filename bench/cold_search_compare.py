"""Cold ``vaultctx search --json`` of two source trees, compared answer by answer.

A change to how a cold search loads its models must leave every answer where it was. Each query
runs as a fresh process (the cold path: no engine, nothing loaded) once per tree against the same
index, and the JSON answers are compared with ``took_ms`` removed. The queries: every note's
title, its first ``##`` heading and "how do I <title>", in hybrid and vector mode.

    PYTHONPATH=src .venv/bin/python bench/cold_search_compare.py --old OLD/src --db INDEX \\
        [--new src] [--vault examples/vault]

Prints each differing query and a count; exits 1 when any answer differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def queries(vault: Path) -> list[str]:
    found: list[str] = []
    for note in sorted(vault.rglob("*.md")):
        lines = note.read_text(encoding="utf-8").splitlines()
        heading = next((line[3:].strip() for line in lines if line.startswith("## ")), "")
        found += [q for q in (note.stem, heading, f"how do I {note.stem}") if q]
    return found


def answer(src: Path, vault: Path, db: Path, query: str, mode: str) -> str:
    env = {**os.environ, "VAULTCTX_ENGINE": "off", "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "vaultctx", "search", query, "--vault", str(vault)]
    command += ["--db", str(db), "--json", "--mode", mode]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    data = json.loads(done.stdout)
    data.pop("took_ms", None)
    return json.dumps(data, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the older source tree")
    parser.add_argument("--new", type=Path, default=REPO / "src")
    parser.add_argument("--db", type=Path, required=True, help="an index of the vault")
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    args = parser.parse_args()
    same = differ = 0
    for query in queries(args.vault):
        for mode in ("hybrid", "vector"):
            old = answer(args.old, args.vault, args.db, query, mode)
            new = answer(args.new, args.vault, args.db, query, mode)
            if old == new:
                same += 1
            else:
                differ += 1
                print(f"differs ({mode}): {query}", flush=True)
    print(f"{same + differ} answers: {same} identical, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
