"""``vaultctx search`` (and ``context``, ``status``) through a running server vs in-process, as
whole processes (docs/cli-server.md).

Indexes a vault (default: the repo's example vault, ``examples/vault``) into a temporary
database, starts ``vaultctx serve --http`` for it, and times whole ``python -m vaultctx ...``
processes, alternating forwarded and in-process runs (``VAULTCTX_NO_SERVER=1``) so both meet the
same machine load; the first runs of each are discarded (OS file cache, the server's warm-up).
Also times ``python -c pass``, the floor under any command written in Python.

    PYTHONPATH=src .venv/bin/python bench/cli_server.py [--vault DIR] [--rounds 10] [--query Q]

``--query`` times only ``search Q --json`` (with the ``[ko]`` extra, a Korean query on a Korean
vault shows what a server saves: Kiwi loads once in the server, never in the CLI).

Prints one line per figure: median and min wall milliseconds, median CPU, the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hook_latency import children_cpu_ms, environment, start_server
from vaultctx.api import Vault

REPO = Path(__file__).resolve().parents[1]
WARMUP = 3
COMMANDS = {
    "search (hybrid, --json)": ["search", "roll back the billing deploy", "--json"],
    "search (hybrid, text)": ["search", "postmortem action items"],
    "context": ["context", "billing service timeouts"],
    "status": ["status"],
}


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    import subprocess
    import time

    cpu = children_cpu_ms()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stderr}")
    return elapsed, children_cpu_ms() - cpu


def line(label: str, walls: list[float], cpus: list[float]) -> str:
    return (
        f"{label}: median {statistics.median(walls):.0f} ms, min {min(walls):.0f} ms, "
        f"CPU median {statistics.median(cpus):.0f} ms ({len(walls)} runs, "
        f"load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--query", help="Search for this instead (e.g. a Korean query).")
    args = parser.parse_args()
    commands = dict(COMMANDS)
    if args.query:
        commands = {f"search {args.query!r} (--json)": ["search", args.query, "--json"]}
    env = environment()
    env.pop("VAULTCTX_NO_SERVER", None)
    local_env = {**env, "VAULTCTX_NO_SERVER": "1"}
    with tempfile.TemporaryDirectory() as temporary:
        db = Path(temporary) / "index.db"
        with Vault(args.vault, db=db) as handle:
            handle.index()
        server = start_server(args.vault, db, env)
        try:
            floor = [run([sys.executable, "-c", "pass"], env) for _ in range(args.rounds)]
            print(line("python -c pass", [w for w, _ in floor], [c for _, c in floor]))
            for label, command in commands.items():
                full = [sys.executable, "-m", "vaultctx", *command]
                full += ["--vault", str(args.vault), "--db", str(db)]
                served: list[tuple[float, float]] = []
                local: list[tuple[float, float]] = []
                for index in range(WARMUP + args.rounds):
                    pair = run(full, env), run(full, local_env)
                    if index >= WARMUP:
                        served.append(pair[0])
                        local.append(pair[1])
                forwarded = line(f"{label} via server", *map(list, zip(*served, strict=True)))
                in_process = line(f"{label} in-process", *map(list, zip(*local, strict=True)))
                ratio = statistics.median(w for w, _ in local) / statistics.median(
                    w for w, _ in served
                )
                print(forwarded)
                print(f"{in_process}; {ratio:.1f}x slower than via the server")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
