"""``vaultctx ask`` with the user's engine running: spawn → first byte at the backend.

The backend is the OpenAI wire fake of tests/agent/fakes on loopback; it records a request once
its body is read, so a figure is the client's start, the engine's turn up to the model call
(settings, retrieval on the warm index, the request) and the request's transfer. The engine is
started in a private runtime folder and warmed by one untimed ``ask`` (its first turn imports
the agent's libraries); runs then alternate with ``--no-engine`` ones, so load hits both alike.
Used by ``bench/wallclock.py --rows ask-engine``; alone:

    PYTHONPATH=src:. .venv/bin/python bench/ask_engine.py --vault DIR --db PATH [--runs 10]
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
for folder in (REPO, REPO / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from agent_latency import _one_ask  # noqa: E402
from tests.agent.fakes import OpenAIFake  # noqa: E402

QUESTION = "how do we rotate the api keys"


def first_byte(env: dict[str, str], vault: Path, db: Path, runs: int) -> dict[str, list[float]]:
    """Milliseconds from spawn to the backend's receipt, engine and in-process, ``runs`` each."""
    timings: dict[str, list[float]] = {"engine": [], "in-process": []}
    with tempfile.TemporaryDirectory(prefix="vx-ask-") as home, OpenAIFake() as fake:
        config = Path(home) / "config" / "vaultctx"
        config.mkdir(parents=True)
        (config / "vaultctx.toml").write_text(
            f'[agent]\nbackend = "openai"\nmodel = "gpt-5.2"\nbase_url = "{fake.base_url}/v1"\n'
            'api_key_secret = "bench"\ntranslate = false\n',
            encoding="utf-8",
        )
        engine_env = dict(
            env,
            XDG_CONFIG_HOME=str(Path(home) / "config"),
            XDG_DATA_HOME=str(Path(home) / "data"),
            BENCH="sk-bench",
            PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
            VAULTCTX_ENGINE="on",
            VAULTCTX_RUNTIME_DIR=f"{home}/rt",
        )
        argv = [sys.executable, "-m", "vaultctx", "ask", QUESTION, "--vault", str(vault)]
        argv += ["--db", str(db)]
        vaultctx = [sys.executable, "-m", "vaultctx"]
        subprocess.run([*vaultctx, "engine", "start"], env=engine_env, check=True)
        try:
            _wait_for_engine(engine_env)
            _one_ask(fake, argv, engine_env)  # the engine's first turn imports the agent
            envs = {"engine": engine_env, "in-process": {**engine_env, "VAULTCTX_ENGINE": "off"}}
            for run in range(runs + 1):
                for name, run_env in envs.items():
                    elapsed = _one_ask(fake, argv, run_env)
                    if run:  # the first run warms the OS file cache
                        timings[name].append(elapsed)
        finally:
            subprocess.run([*vaultctx, "engine", "stop"], env=engine_env, capture_output=True)
    return timings


def _wait_for_engine(env: dict[str, str], deadline: float = 60.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        done = subprocess.run(
            [sys.executable, "-m", "vaultctx", "engine", "status"], env=env, capture_output=True
        )
        if done.returncode == 0:
            return
        time.sleep(0.2)
    raise SystemExit("the engine did not start")


def summary(values: list[float]) -> str:
    middle, low, high = statistics.median(values), min(values), max(values)
    return f"median {middle:,.0f} ms (min {low:,.0f}, max {high:,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    env = {**os.environ, "VAULTCTX_ENGINE": "on"}
    for name, values in first_byte(env, args.vault, args.db, args.runs).items():
        print(f"ask spawn -> first byte, {name}: {summary(values)}; {len(values)} runs")
    print(f"bare `python -c pass`, spawn -> exit: {summary(bare_python(args.runs))}")


def bare_python(runs: int) -> list[float]:
    """The floor of any process, measured in the same run."""
    values = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        values.append((time.perf_counter() - started) * 1000)
    return values


if __name__ == "__main__":
    main()
