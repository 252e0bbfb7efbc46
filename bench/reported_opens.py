"""What a reported open costs when the plugin's record is full (docs/obsidian.md, issue 27):
``MAX_PATHS`` notes with ``OPENS_PER_PATH`` opens each, in a temporary vault and state folder.

- record: one ``opens`` report of one note, as the plugin's action runs it (read, add, bound,
  write 0600 and fsync, rename). The plugin sends one per note stayed on for 2 s.
- load: the review queue reading the record and taking each note's last open.

    PYTHONPATH=src:. .venv/bin/python bench/reported_opens.py [--runs 20]

Prints the record's size, the median and the slowest run of each, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from vaultctx.brain.reported_opens import (
    MAX_PATHS,
    OPENS_PER_PATH,
    load_reported_opens,
    record_reported_opens,
    save_reported_opens,
)
from vaultctx.vault.scanner import load_ignore_rules

DAY = 86_400.0


def timed(run: Callable[[int], object], runs: int) -> list[float]:
    took = []
    for index in range(runs):
        start = time.perf_counter()
        run(index)
        took.append((time.perf_counter() - start) * 1000)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        vault = Path(folder) / "vault"
        (vault / "notes").mkdir(parents=True)
        names = [f"notes/A fairly typical note title {i:05}.md" for i in range(MAX_PATHS)]
        for name in names:
            (vault / name).write_bytes(b"")
        now = time.time()
        where = Path(folder) / "state" / "opens.json"
        full = {n: [now - k * DAY - i for k in range(OPENS_PER_PATH)] for i, n in enumerate(names)}
        save_reported_opens(where, full)
        rules, _ = load_ignore_rules(vault)
        recorded = timed(
            lambda i: record_reported_opens(
                vault, rules, [{"path": names[i], "at": now * 1000}], now, where
            ),
            runs,
        )
        loaded = timed(lambda i: load_reported_opens(where).last_opened(), runs)
        print(f"record: {MAX_PATHS} notes x {OPENS_PER_PATH} opens, {where.stat().st_size:,} B")
        for label, took in (("record one open", recorded), ("load for the queue", loaded)):
            print(f"{label}: median {statistics.median(took):.1f} ms, max {max(took):.1f} ms")
        print("load average", " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
