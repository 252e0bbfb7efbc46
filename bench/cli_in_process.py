"""What one CLI call costs a test: a ``python -m vaultctx`` child against ``run_vaultctx`` in the
test process (tests/cli_in_process.py), paired and interleaved so both see the same load.

    PYTHONPATH=. .venv/bin/python bench/cli_in_process.py [ROUNDS]

Prints each command's median wall time both ways over ROUNDS pairs (default 5) and the load.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.brain.conftest import BREAD, KUBE, indexed_vault, run_cli

COMMANDS = (("brain", "gaps", "--json"), ("ledger", "--json"), ("todo", "--json"))


def main(rounds: int) -> None:
    root = Path(tempfile.mkdtemp())
    vault = indexed_vault(root, {"a.md": KUBE, "b.md": BREAD})
    run_cli(root, vault, "ledger", "--json")  # the first in-process call imports the CLI
    print(f"load before: {os.getloadavg()[0]:.1f}")
    for command in COMMANDS:
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(rounds):
            for process in (True, False):
                started = time.perf_counter()
                done = run_cli(root, vault, *command, process=process)
                times[process].append(time.perf_counter() - started)
                assert done.returncode == 0, done.stderr
        child, here = (statistics.median(times[p]) for p in (True, False))
        print(f"{' '.join(command):20} process {child:6.2f} s  in-process {here:6.2f} s")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
