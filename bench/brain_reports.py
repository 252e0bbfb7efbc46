"""Speed and memory of the Second Brain's offline reports on the PowerShell corpus (issue 14:
each under 60 s and 1 GB on the 14,142-file corpus).

Run: .venv/bin/python bench/brain_reports.py
Indexes the corpus (pass 1, cached under $VAULTCTX_BENCH_CACHE; the corpus is only read), then
runs each report as a real `vaultctx brain … --json` process, as a user would, with the Second
Brain enabled in a private user config. Prints one line per report: wall seconds (process start
included), peak RSS, and how many items it found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import CACHE, powershell_corpus
from index_scale import tree_rss_mb
from vaultctx.api import Vault

VAULTCTX = str(Path(sys.executable).with_name("vaultctx"))
REPORTS = ("gaps", "links", "duplicates", "review-queue")


def run_report(report: str, vault: Path, db: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB, and the number of items of one report."""
    argv = [VAULTCTX, "brain", report, "--json", "--vault", str(vault), "--db", str(db)]
    # Output to files, not pipes: a report of thousands of items would fill a pipe nobody reads
    # while the memory is polled, and stall the process.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)
        peak = 0.0
        while process.poll() is None:
            peak = max(peak, tree_rss_mb(process.pid))
            time.sleep(0.05)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"vaultctx brain {report} failed: {err.read()}")
        return wall, peak, len(json.loads(out.read())["items"])


def main() -> None:
    vault = powershell_corpus()
    db = CACHE / "brain-powershell.db"
    with Vault(vault, db=db) as handle:
        handle.index(fast=True)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config" / "vaultctx"
        config.mkdir(parents=True)
        (config / "vaultctx.toml").write_text("[second_brain]\nenabled = true\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("VAULTCTX_")}
        env.update(XDG_CONFIG_HOME=str(Path(tmp) / "config"), XDG_STATE_HOME=str(Path(tmp)))
        files = sum(1 for _ in vault.rglob("*.md"))
        print(f"corpus: {files} markdown files")
        for report in REPORTS:
            wall, peak, items = run_report(report, vault, db, env)
            print(f"brain {report}: {wall:.1f} s wall, peak RSS {peak:.0f} MB ({items} items)")


if __name__ == "__main__":
    main()
