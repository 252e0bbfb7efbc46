"""The agent's own overhead: what vaultctx adds before the model starts working.

- cold: a new ``vaultctx ask`` process, timed from spawn until the backend (an in-repo fake
  speaking the OpenAI protocol, tests/agent/fakes) has received the chat request; alternately
  in-process (``VAULTCTX_NO_SERVER=1``) and beside a running ``serve --http``, which answers its
  search (docs/cli-server.md). The fake
  records a request once its body is read, so this is the first byte plus a request's transfer
  over loopback. Target: < 1.5 s.
- warm retrieval: in one process, the step each question runs before the model is called (the
  hybrid search for the question and the vault's language share), after a warm-up. Target: < 50 ms.

    PYTHONPATH=src:. .venv/bin/python bench/agent_latency.py [--vault DIR --db PATH] [--runs 10]

Without ``--db`` the example vault is indexed (both passes) into a temporary database. Prints one
line per figure (median, p95, min) and the load average around them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.agent.fakes import Answer, OpenAIFake  # noqa: E402
from tests.cli_server.conftest import wait_for_record  # noqa: E402
from tests.mcp.conftest import start_http_server, stop  # noqa: E402
from vaultctx.agent.retrieval import retrieve  # noqa: E402
from vaultctx.api import Vault  # noqa: E402

QUESTIONS = [
    "why did the database lock up",
    "how do we rotate the API keys",
    "what did we decide in the postmortem",
    "WAL checkpoint settings",
    "garden compost plan",
]


def line(name: str, values: list[float], unit: str = "ms") -> None:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(
        f"{name}: median {statistics.median(ordered):.1f} {unit}, p95 {p95:.1f} {unit}, "
        f"min {ordered[0]:.1f} {unit} ({len(ordered)} runs)"
    )


def cold_first_byte(vault: Path, db: Path, runs: int) -> dict[str, list[float]]:
    """Alternating runs: in-process (``VAULTCTX_NO_SERVER=1``) and beside a running server."""
    timings: dict[str, list[float]] = {"in-process": [], "server": []}
    with tempfile.TemporaryDirectory() as home, OpenAIFake() as fake:
        config = Path(home) / "config" / "vaultctx"
        config.mkdir(parents=True)
        (config / "vaultctx.toml").write_text(
            f'[agent]\nbackend = "openai"\nmodel = "gpt-5.2"\nbase_url = "{fake.base_url}/v1"\n'
            'api_key_secret = "bench"\ntranslate = false\n',
            encoding="utf-8",
        )
        env = dict(
            os.environ,
            XDG_CONFIG_HOME=str(Path(home) / "config"),
            XDG_DATA_HOME=str(Path(home) / "data"),
            BENCH="sk-bench",
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        )
        envs = {"in-process": {**env, "VAULTCTX_NO_SERVER": "1"}, "server": env}
        argv = [sys.executable, "-m", "vaultctx", "ask", QUESTIONS[0]]
        argv += ["--vault", str(vault), "--db", str(db)]
        server = start_http_server(["serve", "--vault", str(vault), "--db", str(db)], env)
        try:
            wait_for_record(db, server)
            for run in range(runs + 1):
                for name, run_env in envs.items():
                    elapsed = _one_ask(fake, argv, run_env)
                    if run:  # the first run warms the OS file cache
                        timings[name].append(elapsed)
        finally:
            stop(server)
    return timings


def _one_ask(fake: OpenAIFake, argv: list[str], env: dict[str, str]) -> float:
    fake.queue(Answer("ok"))
    seen = len(fake.requests_to("/chat/completions"))
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    while len(fake.requests_to("/chat/completions")) == seen:
        if process.poll() is not None:
            raise SystemExit(f"vaultctx ask exited with {process.returncode}")
        time.sleep(0.001)
    elapsed = (time.perf_counter() - started) * 1000
    process.wait(timeout=120)
    return elapsed


def warm_retrieval(vault: Path, db: Path, runs: int) -> list[float]:
    timings = []
    with Vault(vault, db=db) as handle:
        retrieve(handle, [QUESTIONS[0]], max_tokens=3000)
        for run in range(runs * len(QUESTIONS)):
            question = QUESTIONS[run % len(QUESTIONS)]
            started = time.perf_counter()
            handle.korean_share()
            retrieve(handle, [question], max_tokens=3000)
            timings.append((time.perf_counter() - started) * 1000)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--db", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        db = args.db
        if db is None:
            db = Path(scratch) / "index.db"
            with Vault(args.vault, db=db) as handle:
                handle.index()
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        for name, timings in cold_first_byte(args.vault, db, args.runs).items():
            line(f"ask cold ({name}), spawn to request at the backend", timings)
        line("retrieval warm (search + language share)", warm_retrieval(args.vault, db, args.runs))
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
