"""Watch mode: time from saving a note to finding it with search (docs/reference.md#indexing,
#integration).

Indexes the Obsidian help vault (173 notes) into a temporary database, starts ``VaultWatcher`` (as
``vaultctx watch`` does) and then, one at a time, creates a new note and edits an existing one,
each with a word found nowhere else, timing how long until a separate read connection finds it
(polled every 10 ms). Then writes a burst of 1,000 new notes and times until the last one is
searchable.

    PYTHONPATH=src .venv/bin/python bench/watch_latency.py [--vault DIR] [--rounds 20]

Prints one line per figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from stats import percentile
from vaultctx.api import Vault
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.watch import VaultWatcher, WatchEvent
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import Retriever

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = (REPO / ".." / "shared" / "data" / "obsidian-help" / "en").resolve()
POLL_SECONDS = 0.01


def found(db: IndexDatabase, word: str) -> bool:
    return bool(Retriever(db, None).search(SearchRequest(word, mode="bm25", limit=1)).results)


def seconds_until_found(db: IndexDatabase, *words: str, timeout: float = 60.0) -> float:
    started = time.perf_counter()
    while not all(found(db, word) for word in words):
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"not searchable within {timeout} s")
        time.sleep(POLL_SECONDS)
    return time.perf_counter() - started


def report(label: str, samples: list[float]) -> None:
    print(
        f"watch {label}: median {statistics.median(samples) * 1000:.0f} ms, "
        f"p95 {percentile(samples, 0.95) * 1000:.0f} ms, max {max(samples) * 1000:.0f} ms "
        f"({len(samples)} saves)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        vault = Path(temporary) / "vault"
        shutil.copytree(args.vault, vault)
        handle = Vault(vault, db=Path(temporary) / "index.db")
        handle.index(fast=True)
        events: list[WatchEvent] = []
        watcher = VaultWatcher(handle, quality=False, on_event=events.append)
        thread = threading.Thread(target=watcher.run, daemon=True)
        thread.start()
        if not watcher.ready.wait(60):
            raise SystemExit("the watcher did not start")
        reader = open_index(handle.db_path, readonly=True)
        existing = sorted(vault.rglob("*.md"))[: args.rounds]
        try:
            created, edited = [], []
            for number in range(args.rounds):
                word = f"zqnewnote{number:03}"
                (vault / f"bench {number}.md").write_text(f"# Bench {number}\n\n{word} here.\n")
                created.append(seconds_until_found(reader, word))
                word = f"zqedited{number:03}"
                note = existing[number % len(existing)]
                note.write_text(note.read_text(encoding="utf-8") + f"\n\n{word}\n", "utf-8")
                edited.append(seconds_until_found(reader, word))
            report("new note saved -> searchable", created)
            report("edited note saved -> searchable", edited)
            runs_before = sum(1 for e in events if e.kind == "indexed")
            burst = vault / "burst"
            burst.mkdir()
            started = time.perf_counter()
            for number in range(1000):
                (burst / f"n{number:04}.md").write_text(f"# N{number}\n\nzqburst{number:04}\n")
            written = time.perf_counter() - started
            rest = seconds_until_found(reader, "zqburst0999", "zqburst0000")
            time.sleep(0.5)  # a run's event is reported just after its commit
            runs = sum(1 for e in events if e.kind == "indexed") - runs_before
            print(
                f"watch burst of 1,000 new notes: all searchable {written + rest:.2f} s after the "
                f"first write ({written:.2f} s spent writing; {runs} indexer runs)"
            )
        finally:
            reader.close()
            watcher.stop()
            thread.join(30)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
