"""Memory of the user's engine with three clients on one English vault (issue 24's target:
three MCP clients, total RSS < 350 MB, against ~3 × 238 MB of three in-process servers).

Starts the engine in a private runtime folder, then three clients of one vault, and sums the
memory of every process involved (the engine, the clients, and their children) from /proc:
RSS (``VmRSS``: pages shared between processes are counted in each) and PSS (``Pss`` of
``smaps_rollup``: each shared page split between its sharers, so the sum is what the machine
really holds).

``--clients cli`` (default): three ``vaultctx search`` processes at once, each answered by the
engine; a thin client exits once answered, so its figure is its own peak (``ru_maxrss``), and
the engine's is read after the three answers. ``--clients serve``: three ``vaultctx serve``
stdio processes, as three AI tools start them, each after ``initialize`` and one
``obsidian_search``, all alive while memory is read. Until ``serve`` relays to the engine each
holds its own index and models, and the engine holds none: that row measures today's
three-servers baseline and, once the relay exists, the target itself.

    PYTHONPATH=src .venv/bin/python bench/engine_memory.py [--clients cli|serve]
        [--vault DIR --db PATH] [--settle 5]

Without ``--vault`` the example vault is copied and indexed (both passes) in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from serve_memory import Server  # bench/, this script's folder

REPO = Path(__file__).resolve().parents[1]
QUERY = "how do we rotate the api keys"
CLIENTS = 3


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (worker processes included)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in kB; (0, 0) when it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0, 0

    def field(text: str, name: str) -> int:
        for row in text.splitlines():
            if row.startswith(name + ":"):
                return int(row.split()[1])
        return 0

    return field(status, "VmRSS"), field(rollup, "Pss")


def total_kb(roots: list[int]) -> tuple[int, int, int]:
    """(RSS, PSS, process count) summed over ``roots`` and their descendants."""
    pids = sorted({pid for root in roots for pid in descendants(root)})
    figures = [memory_kb(pid) for pid in pids]
    return sum(r for r, _ in figures), sum(p for _, p in figures), len(pids)


def started_server(vault: Path, db: Path) -> Server:
    """``vaultctx serve`` (stdio) after ``initialize`` and one ``obsidian_search``."""
    server = Server(REPO / "src", vault, db)
    hello = {"name": "engine-memory-bench", "version": "0"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": hello}
    server.request("initialize", params)
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.search(QUERY)
    return server


def engine_pid(folder: Path) -> int:
    return int((folder / "engine.pid").read_text().strip())


def run_cli(env: dict[str, str], vault: Path, db: Path) -> tuple[list[int], int]:
    """Three searches at once through the engine; (their peak RSS in kB, how many the engine
    answered)."""
    command = [sys.executable, "-m", "vaultctx", "search", QUERY, "--json"]
    command += ["--vault", str(vault), "--db", str(db)]
    children = [
        subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        for _ in range(CLIENTS)
    ]
    peaks, by_engine = [], 0
    for child in children:
        assert child.stderr is not None
        err = child.stderr.read()
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"search failed: {err.decode()[-800:]}")
        peaks.append(int(usage.ru_maxrss))  # kB on Linux
        by_engine += b"answered by the engine" in err
    return peaks, by_engine


def indexed_example(root: Path, env: dict[str, str]) -> tuple[Path, Path]:
    vault, db = root / "vault", root / "index.db"
    shutil.copytree(REPO / "examples" / "vault", vault)
    command = [sys.executable, "-m", "vaultctx", "--no-engine", "index", "-q"]
    subprocess.run([*command, "--vault", str(vault), "--db", str(db)], env=env, check=True)
    return vault, db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", choices=("cli", "serve"), default="cli")
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before reading")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vx-mem-") as scratch:
        root = Path(scratch)
        env = {k: v for k, v in os.environ.items() if not k.startswith("VAULTCTX_")}
        env.update(
            PYTHONPATH=str(REPO / "src"),
            VAULTCTX_ENGINE="on",
            VAULTCTX_VERBOSE="1",
            VAULTCTX_RUNTIME_DIR=str(root / "rt"),
            VAULTCTX_ENGINE_IDLE_SECONDS="600",
        )
        if args.vault is None:
            vault, db = indexed_example(root, env)
        else:
            vault, db = args.vault.resolve(), (args.db or Path()).resolve()
        print(f"vault {vault}, index {db}; {args.clients} clients; load {load()}", flush=True)
        base = [sys.executable, "-m", "vaultctx", "engine"]
        subprocess.run([*base, "start"], env=env, check=True, capture_output=True)
        engine = engine_pid(root / "rt")
        os.environ.update(env)  # serve_memory.Server starts its servers with this environment
        clients: list[Server] = []
        try:
            if args.clients == "cli":
                run_cli(env, vault, db)  # opens and warms the vault in the engine; not counted
                time.sleep(args.settle)
                peaks, answered = run_cli(env, vault, db)
                time.sleep(args.settle)
                rss, pss, count = total_kb([engine])
                print(
                    f"engine after {CLIENTS} searches ({answered} answered by it): "
                    f"RSS {rss / 1024:,.0f} MB, PSS {pss / 1024:,.0f} MB ({count} processes); "
                    f"each client's peak RSS {', '.join(f'{p / 1024:,.0f}' for p in peaks)} MB; "
                    f"engine + clients {(rss + sum(peaks)) / 1024:,.0f} MB RSS; load {load()}",
                    flush=True,
                )
            else:
                clients = [started_server(vault, db) for _ in range(CLIENTS)]
                time.sleep(args.settle)
                for client in clients:
                    client.search(QUERY)
                roots = [engine, *(c.process.pid for c in clients)]
                rss, pss, count = total_kb(roots)
                each = [total_kb([c.process.pid]) for c in clients]
                engine_rss, engine_pss, _ = total_kb([engine])
                print(
                    f"engine + {CLIENTS} `vaultctx serve`: RSS {rss / 1024:,.0f} MB, "
                    f"PSS {pss / 1024:,.0f} MB ({count} processes); engine RSS "
                    f"{engine_rss / 1024:,.0f} MB, PSS {engine_pss / 1024:,.0f} MB; each serve "
                    f"RSS {', '.join(f'{r / 1024:,.0f}' for r, _p, _n in each)} MB; load {load()}",
                    flush=True,
                )
        finally:
            for client in clients:
                client.close()
            subprocess.run([*base, "stop"], env=env, capture_output=True)


if __name__ == "__main__":
    main()
