"""A search round-trip in the web UI's page, warm: Enter pressed until the results are shown.

Run: PYTHONPATH=src .venv/bin/python bench/ui_latency.py [--files 5450] [--queries 40]
Builds (once, cached) a vault of the first ``--files`` files of the PowerShell corpus (sorted
paths; 5,450 files are ~50k chunks), indexes pass 1, starts a real ``vaultctx ui`` and drives
Debian's chromium through Playwright: each query is typed into the box, Enter pressed, and the
page's own clock (``performance.now()`` from the submit to the swapped-in results, the
``data-roundtrip-ms`` the page records) is read. Prints p50/p95 of the round-trip and of the
server's search time shown on the page.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import CACHE, powershell_corpus
from query_speed import QUERY_WORDS
from stats import percentile
from vaultctx.api import Vault

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def part_of_corpus(files: int) -> Path:
    target = CACHE / f"powershell-first-{files}"
    if (target / ".copied").exists():
        return target
    corpus = powershell_corpus()
    shutil.rmtree(target, ignore_errors=True)
    for source in sorted(corpus.rglob("*.md"))[:files]:
        destination = target / source.relative_to(corpus)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    (target / ".copied").touch()
    return target


def start_ui(vault: Path, db: Path, port: int) -> tuple[subprocess.Popen[str], str]:
    where = ["--vault", str(vault), "--db", str(db), "--port", str(port)]
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultctx", "ui", *where],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"(http://\S+)", line)
    assert match, line
    return process, match.group(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5450)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--port", type=int, default=18770)
    args = parser.parse_args()
    vault_path = part_of_corpus(args.files)
    db = CACHE / f"powershell-first-{args.files}.db"
    with Vault(vault_path, db=db) as vault:
        if not db.exists():
            vault.index(fast=True)
        print(f"index: {vault.status().chunks} chunks, {vault.status().files} files")
    process, url = start_ui(vault_path, db, args.port)
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True
            )
            page = context.new_page()
            page.goto(url, timeout=120_000)
            time.sleep(5)  # the server's warm-up: index, models, vectors into memory
            round_trips, server = [], []
            for number in range(args.queries + 5):
                query = QUERY_WORDS[number % len(QUERY_WORDS)]
                page.fill("#q", query)
                page.press("#q", "Enter")
                deadline = time.monotonic() + 60
                while page.evaluate("Number(results.dataset.searches || 0)") <= number:
                    assert time.monotonic() < deadline
                    time.sleep(0.005)
                if number < 5:
                    continue  # warm-up queries
                round_trips.append(float(page.get_attribute("#results", "data-roundtrip-ms")))
                count = page.inner_text("#results .count")
                server.append(float(re.search(r"in (\d+) ms", count).group(1)))  # type: ignore[union-attr]
            context.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    print(
        f"round-trip in the page, warm, {len(round_trips)} queries: "
        f"p50 {statistics.median(round_trips):.1f} ms, p95 {percentile(round_trips, 0.95):.1f} ms"
    )
    print(
        f"of which the search itself (server): p50 {statistics.median(server):.0f} ms, "
        f"p95 {percentile(server, 0.95):.0f} ms"
    )


if __name__ == "__main__":
    main()
