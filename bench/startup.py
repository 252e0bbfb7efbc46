"""Start-up latency of the processes users and their AI tools spawn (issues 3 and 4).

Every figure is a new process timed from spawn to answer, ``--runs`` times (median, p95, min),
after one untimed run so the OS file cache is warm:

- ``python -c pass`` and ``python -c "import vaultctx.cli.main"``: the floor under any command;
- ``python -c "import mcp.server.mcpserver"``: the official SDK's import, the floor under ``serve``;
- a cold ``vaultctx search QUERY --json`` (hybrid, and ``--mode bm25``);
- ``python -m vaultctx.hooks context`` answering a UserPromptSubmit event with no server running;
- ``vaultctx serve`` over stdio with the SDK's own client, as Claude Code or Codex start it:
  spawn to the ``initialize`` answer, then ``tools/list`` and the first search (which may wait
  for the model warm-up the server starts after answering).

    PYTHONPATH=src .venv/bin/python bench/startup.py [--vault DIR --db PATH] [--runs 10]
        [--src DIR]

Without ``--db`` the example vault is indexed (both passes) into a temporary database; start-up
hardly depends on the corpus size. ``--src`` times another source tree (e.g. an older commit
unpacked with ``git archive``) with the same interpreter, for before/after figures. Prints one
line per figure, with the CPU time of the process, and the load average around them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

import anyio
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from stats import percentile
from vaultctx.api import Vault

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_VAULT = REPO / "examples" / "vault"
VAULTCTX = str(Path(sys.executable).with_name("vaultctx"))
QUERY = "how do we rotate the api keys"
PROMPT = "How do I rotate the API keys for the deploy pipeline?"


def environment(src: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    for name in ("VAULTCTX_HOOK_ACTIVE", "VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN"):
        env.pop(name, None)
    return env


class Sample(NamedTuple):
    wall: float
    cpu: float  # user + system seconds of the child: steadier than wall time on a busy machine


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(command: list[str], env: dict[str, str], stdin: str = "") -> Sample:
    """Spawn to exit; a failure stops the benchmark with the command's stderr."""
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-500:]}")
    return Sample(elapsed, children_cpu() - cpu)


def run_spawned(command: list[str], env: dict[str, str], stdin: Callable[[], str]) -> Sample:
    return run_process(command, env, stdin())


def repeat(measure: Callable[[], Sample], runs: int) -> list[Sample]:
    measure()  # warms the OS file cache; not counted
    return [measure() for _ in range(runs)]


def report(label: str, seconds: list[float], cpu: list[float] | None = None) -> None:
    ms = [s * 1000 for s in seconds]
    cpu_part = f", CPU median {statistics.median(cpu) * 1000:.0f} ms" if cpu else ""
    print(
        f"{label}: median {statistics.median(ms):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, "
        f"min {min(ms):.0f} ms{cpu_part} ({len(ms)} runs)",
        flush=True,
    )


def hook_event() -> str:
    return json.dumps(
        {
            "session_id": str(uuid.uuid4()),  # a new session: nothing is left out as repeated
            "transcript_path": "/tmp/bench.jsonl",
            "cwd": "/tmp",
            "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPT,
        }
    )


async def serve_once(vault: Path, db: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds to the initialize answer, then to tools/list and to the first search."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)],
        env=env,
    )
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        initialized = time.perf_counter()
        await client.list_tools()
        listed = time.perf_counter()
        result = await client.call_tool("obsidian_search", {"query": QUERY})
        searched = time.perf_counter()
        if result.is_error:
            raise SystemExit(f"search failed: {result.content}")
    return initialized - started, listed - initialized, searched - listed


def measure_serve(vault: Path, db: Path, env: dict[str, str], runs: int) -> None:
    anyio.run(serve_once, vault, db, env)
    samples = [anyio.run(serve_once, vault, db, env) for _ in range(runs)]
    report("serve: spawn -> initialize answered", [s[0] for s in samples])
    report("serve: then tools/list", [s[1] for s in samples])
    report("serve: then first obsidian_search", [s[2] for s in samples])


def measure_all(vault: Path, db: Path, runs: int, src: Path) -> None:
    env = environment(src)
    python = sys.executable
    where = ["--vault", str(vault), "--db", str(db)]
    processes: list[tuple[str, list[str], Callable[[], str]]] = [
        ("python -c pass (floor)", [python, "-c", "pass"], str),
        ("import vaultctx.cli.main", [python, "-c", "import vaultctx.cli.main"], str),
        ("import mcp.server.mcpserver (SDK)", [python, "-c", "import mcp.server.mcpserver"], str),
        ("cold vaultctx search (hybrid)", [VAULTCTX, "search", QUERY, *where, "--json"], str),
        (
            "cold vaultctx search --mode bm25",
            [VAULTCTX, "search", QUERY, *where, "--json", "--mode", "bm25"],
            str,
        ),
        (
            "hook context in-process (no server)",
            [python, "-m", "vaultctx.hooks", "context", *where],
            hook_event,
        ),
    ]
    for label, command, stdin in processes:
        samples = repeat(partial(run_spawned, command, env, stdin), runs)
        report(label, [s.wall for s in samples], [s.cpu for s in samples])
    measure_serve(vault, db, env, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=EXAMPLE_VAULT)
    parser.add_argument("--db", type=Path, help="an existing index of --vault (else one is built)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--src", type=Path, default=REPO / "src", help="source tree to time")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if args.db is not None:
        measure_all(args.vault.resolve(), args.db.resolve(), args.runs, args.src.resolve())
    else:
        with tempfile.TemporaryDirectory() as scratch:
            db = Path(scratch) / "index.db"
            Vault(args.vault, db=db).index()
            measure_all(args.vault.resolve(), db, args.runs, args.src.resolve())
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
