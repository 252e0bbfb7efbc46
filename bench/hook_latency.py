"""``hook context`` latency: what every Claude Code prompt waits for
(docs/reference.md#integration).

Indexes the Obsidian help vault (173 notes) into a temporary database and runs the hook exactly as
Claude Code does: a new ``python -m vaultctx.hooks context`` process per event, the event JSON on
stdin. Timed twice, warm (the first runs are discarded so the OS file cache is hot):

- with a running ``vaultctx serve --http`` (found through its state file), and
- in-process (no server: BM25 search inside the hook process).

Also times a bare ``python -c pass`` on this machine, the floor under any hook written in Python.

    PYTHONPATH=src .venv/bin/python bench/hook_latency.py [--vault DIR] [--rounds 30]

Prints one line per figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from stats import percentile
from vaultctx.api import Vault
from vaultctx.loopback.server_link import state_path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VAULT = (REPO / ".." / "shared" / "data" / "obsidian-help" / "en").resolve()
PROMPTS = [
    "How do I link to a heading in another note?",
    "embed an image in a note",
    "set up a daily notes template",
    "is sync end-to-end encrypted?",
    "filter the graph view by tag",
    "use callouts that fold",
    "what property types are there, like dates?",
    "move the vault folder to another drive",
    "write footnotes in markdown",
    "import notes from Notion",
]
WARMUP = 3


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env.get("PYTHONPATH")) if p)
    for name in ("VAULTCTX_HOOK_ACTIVE", "VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN"):
        env.pop(name, None)
    return env


def children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def time_process(command: list[str], stdin: str, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU milliseconds of one process (CPU is steadier on a busy machine), its stdout."""
    cpu = children_cpu_ms()
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stderr}")
    return elapsed, children_cpu_ms() - cpu, done.stdout


def time_hook(
    vault: Path, db: Path, rounds: int, env: dict[str, str]
) -> tuple[list[float], list[float], int]:
    """Wall and CPU milliseconds per hook run after the warm-up, and how many injected context."""
    command = [sys.executable, "-m", "vaultctx.hooks", "context", "--vault", str(vault)]
    command += ["--db", str(db)]
    samples: list[float] = []
    cpus: list[float] = []
    answered = 0
    for index in range(WARMUP + rounds):
        event = {
            "session_id": str(uuid.uuid4()),  # a new session: nothing is left out as repeated
            "transcript_path": "/tmp/bench.jsonl",
            "cwd": str(vault),
            "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPTS[index % len(PROMPTS)],
        }
        elapsed, cpu, stdout = time_process(command, json.dumps(event), env)
        if index >= WARMUP:
            samples.append(elapsed)
            cpus.append(cpu)
            answered += bool(stdout.strip())
    return samples, cpus, answered


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(vault: Path, db: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    port = free_port()
    command = [sys.executable, "-m", "vaultctx", "serve", "--vault", str(vault), "--db", str(db)]
    server = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if state_path(db).exists() and probe.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start within 120 s")


def report(label: str, samples: list[float], cpus: list[float], answered: int) -> None:
    print(
        f"hook context {label}: median {statistics.median(samples):.0f} ms, "
        f"p95 {percentile(samples, 0.95):.0f} ms, min {min(samples):.0f} ms, "
        f"CPU median {statistics.median(cpus):.0f} ms "
        f"({len(samples)} runs, {answered} injected context, "
        f"load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    env = environment()
    with tempfile.TemporaryDirectory() as temporary:
        vault = Path(temporary) / "vault"
        shutil.copytree(args.vault, vault)
        db = Path(temporary) / "index.db"
        Vault(vault, db=db).index()
        floor = [time_process([sys.executable, "-c", "pass"], "", env)[0] for _ in range(10)]
        print(f"python -c pass (floor): median {statistics.median(floor):.0f} ms")
        samples, cpus, answered = time_hook(vault, db, args.rounds, env)
        report("in-process (no server, warm)", samples, cpus, answered)
        server = start_server(vault, db, env)
        try:
            samples, cpus, answered = time_hook(vault, db, args.rounds, env)
            report("with server (warm)", samples, cpus, answered)
        finally:
            server.terminate()
            server.wait(30)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
