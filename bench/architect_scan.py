"""architect's scan on a huge folder: the PowerShell docs (14,142 files) walked, its module tree
built and cut to 400 lines, at the default limits and with the file limit hit.

Run: .venv/bin/python bench/architect_scan.py
Prints one line per run: files seen, why the walk stopped (if it did), tree lines shown and left
out, best of 3 wall times, and the process's peak RSS at the end.
"""

from __future__ import annotations

import resource
import time

from corpora import powershell_corpus
from vaultctx.brain.code_scan import scan_folder, skeleton


def main() -> None:
    root = powershell_corpus()
    for limit in (20_000, 5_000):
        times = []
        for _ in range(3):
            started = time.perf_counter()
            scan = scan_folder(root, None, max_files=limit)
            lines, omitted = skeleton(scan)
            times.append(time.perf_counter() - started)
        stopped = scan.stopped or "not stopped"
        print(
            f"max_files={limit:,}: {len(scan.files):,} files ({stopped}); tree {len(lines)} lines "
            f"+ {omitted:,} omitted; best {min(times) * 1000:.0f} ms"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
