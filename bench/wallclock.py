"""What the user waits for: whole processes, timed from spawn, for each row of issue 16's table.

One line per figure: the median of ``--runs`` whole-process runs (after one untimed run that
warms the OS file cache), the process's CPU time where it means something, and the in-process
figure next to it where the command reports one (``seconds`` of ``index --json``, ``took_ms`` of
``search --json``). The load average is printed around every row: this machine is shared, so
compare old and new code in one run (``--src``), not across days.

Rows (``--rows``, comma-separated; all by default):

- ``noop``: ``vaultctx index`` when nothing changed (``--fast`` on a vault whose pass 2 is not
  done, or the run would start pass 2);
- ``noop-engine``: the same with the user's engine running (``vaultctx index`` is run there);
- ``search``: cold ``vaultctx search QUERY --json`` (hybrid), and ``--mode bm25``;
- ``search-server``: the same while ``vaultctx serve --http`` runs for the vault (the CLI uses
  the server when it can; without forwarding this measures the in-process path again);
- ``search-engine``: the same with the user's engine running (``vaultctx engine start`` in a
  private runtime folder first, ``engine stop`` after); every other row runs with the engine
  off (``VAULTCTX_ENGINE=off``), so "cold" stays cold;
- ``ask-engine``: ``vaultctx ask``, spawn → first byte at the backend (the OpenAI wire fake of
  tests/agent/fakes), with the engine running, next to ``--no-engine`` runs (bench/ask_engine.py);
- ``korean``: a Korean query, cold and with the server running (Kiwi is used when
  ``kiwipiepy`` is installed; the line says whether it is);
- ``mcp``: ``vaultctx serve`` over stdio, spawned as an AI tool spawns it: spawn to the
  ``initialize`` answer, then the first ``obsidian_search`` right after the handshake, and the
  server's peak RSS (VmHWM) after a second search ``--settle`` seconds later (warm-up done);
- ``mcp-engine``: ``vaultctx serve`` as the relay to the user's engine (docs/mcp.md): spawn to
  the ``initialize`` answer with the engine running and warm, then the first hybrid
  ``obsidian_search``; then the same on a cold machine (the engine stopped before each run: the
  relay answers ``initialize`` itself and starts it), and the memory of three relays and the
  engine they share. A bare ``python -c pass`` is timed first, in the same run;
- ``full-index``: a full ``vaultctx index --fast`` into a new database, wall and CPU (its worker
  processes included), ``--index-runs`` times (default 3: a PowerShell run takes 30–100 s);
- ``pass2``: pass-2 speed, chunks/s: ``vaultctx index`` on a copy of the pass-1 database,
  stopped with Ctrl-C after ``--pass2-seconds`` (a sample: all 130k PowerShell chunks take over an
  hour); the rate is the run's own ``quality_embed`` phase figure.

Vaults (``--vaults``): ``example`` (examples/vault, both passes indexed) and ``powershell`` (the
14,142-file PowerShell docs from bench/corpora.py, pass 1 only: a full pass 2 takes too long).
Indexes are built once with the timed source tree and kept in ``$VAULTCTX_BENCH_CACHE/wallclock``.

    PYTHONPATH=src .venv/bin/python bench/wallclock.py [--vaults example,powershell]
        [--rows noop,search,...] [--runs 10] [--src DIR]

``--src`` times another source tree (e.g. ``git archive main | tar -x -C /tmp/old``, then
``--src /tmp/old/src``) with the same interpreter; this script itself needs only the standard
library, so it runs against any tree. ``--compare OLD_SRC`` times the ``noop`` and ``search``
rows of two trees in one run, alternating old and new run by run (so load from other work hits
both alike), and prints both medians and their ratio (new / old).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_VAULT = REPO / "examples" / "vault"
QUERY = "how do we rotate the api keys"
KOREAN_QUERY = "API 키는 얼마나 자주 교체하나요"
ROWS = (
    "noop",
    "noop-engine",
    "search",
    "search-server",
    "search-engine",
    "ask-engine",
    "korean",
    "mcp",
    "mcp-engine",
    "full-index",
    "pass2",
)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Sample(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds of the process and its waited-for children
    inner: float | None  # the in-process figure the command reports, seconds


class Bench:
    def __init__(self, src: Path, runs: int) -> None:
        self.src = src
        self.runs = runs
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(src), os.environ.get("PYTHONPATH")) if p
        )
        for name in ("VAULTCTX_HOOK_ACTIVE", "VAULTCTX_SERVER_URL", "VAULTCTX_TOKEN"):
            self.env.pop(name, None)
        # An installed package has its bytecode compiled (pip does it); a tree timed without it
        # would compile every module in every run. The untimed first run writes it.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["VAULTCTX_ENGINE"] = "off"  # only the engine row uses it (``engine_running``)

    def vaultctx(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "vaultctx", *args]

    def run(self, command: list[str], inner: Callable[[str], float | None] | None = None) -> Sample:
        """Spawn to exit; a failure stops the benchmark with the command's stderr."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=self.env)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            failed = f"{' '.join(command)} failed ({done.returncode})"
            raise SystemExit(f"{failed}: {done.stderr[-800:]}")
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return Sample(wall, cpu, inner(done.stdout) if inner else None)

    def repeat(self, measure: Callable[[], Sample], runs: int | None = None) -> list[Sample]:
        measure()  # warms the OS file cache; not counted
        return [measure() for _ in range(self.runs if runs is None else runs)]


def report(vault: str, label: str, samples: list[Sample], *, cpu: bool = True) -> None:
    wall = [s.wall * 1000 for s in samples]
    parts = [f"median {statistics.median(wall):,.0f} ms wall (min {min(wall):,.0f})"]
    if cpu:
        parts.append(f"CPU {statistics.median(s.cpu for s in samples) * 1000:,.0f} ms")
    inner = [s.inner * 1000 for s in samples if s.inner is not None]
    if inner:
        parts.append(f"in-process {statistics.median(inner):,.1f} ms")
    print(f"[{vault}] {label}: {', '.join(parts)}; {len(wall)} runs; load {load()}", flush=True)


def line(vault: str, label: str, text: str) -> None:
    print(f"[{vault}] {label}: {text}; load {load()}", flush=True)


def index_seconds(stdout: str) -> float:
    return float(json.loads(stdout)["seconds"])


def search_seconds(stdout: str) -> float:
    return float(json.loads(stdout)["took_ms"]) / 1000


# --- vaults and their indexes -------------------------------------------------------------


class Target(NamedTuple):
    name: str
    vault: Path
    db: Path  # the finished index the read-only rows use
    pass1_db: Path  # a pass-1-only index (for the pass-2 sample)
    both_passes: bool


def cache_dir(src: Path) -> Path:
    """One set of indexes per source tree and per state of its code: an index built by older
    code is not what a user of this code has (its scrubber fingerprint differs, say, so every
    search would scrub its output again until a full reindex)."""
    base = Path(os.environ.get("VAULTCTX_BENCH_CACHE", "/tmp/vaultctx-bench")) / "wallclock"
    digest = hashlib.blake2b(str(src.resolve()).encode(), digest_size=6)
    for source in sorted(src.rglob("*")):
        if source.suffix in (".py", ".json") and source.is_file():
            digest.update(source.relative_to(src).as_posix().encode())
            digest.update(source.read_bytes())
    folder = base / digest.hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def build_index(bench: Bench, vault: Path, db: Path, *, fast: bool) -> None:
    if db.exists():
        return
    print(f"building {'a pass-1' if fast else 'a full'} index of {vault} at {db} …", flush=True)
    partial = db.with_name(db.name + ".building")
    for leftover in partial.parent.glob(partial.name + "*"):
        leftover.unlink()
    extra = ["--fast"] if fast else []
    bench.run(bench.vaultctx("index", "--vault", str(vault), "--db", str(partial), "-q", *extra))
    for suffix in ("-wal", "-shm", ".lock"):
        Path(str(partial) + suffix).unlink(missing_ok=True)
    partial.rename(db)


def target(bench: Bench, name: str) -> Target:
    folder = cache_dir(bench.src)
    if name == "example":
        vault = EXAMPLE_VAULT
        pass1, both = folder / "example-pass1.db", folder / "example.db"
        build_index(bench, vault, pass1, fast=True)
        build_index(bench, vault, both, fast=False)
        return Target(name, vault, both, pass1, True)
    if name == "powershell":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from corpora import powershell_corpus

        vault = powershell_corpus() / "windows-powershell-docs"
        pass1 = folder / "powershell-pass1.db"
        build_index(bench, vault, pass1, fast=True)
        return Target(name, vault, pass1, pass1, False)
    raise SystemExit(f"unknown vault {name!r}: use example or powershell")


def where(t: Target, db: Path | None = None) -> list[str]:
    return ["--vault", str(t.vault), "--db", str(db or t.db)]


# --- rows -----------------------------------------------------------------------------------


def row_noop(bench: Bench, t: Target) -> None:
    fast = [] if t.both_passes else ["--fast"]
    command = bench.vaultctx("index", *where(t), "--json", *fast)
    samples = bench.repeat(lambda: bench.run(command, index_seconds))
    report(t.name, f"no-op `vaultctx index{' --fast' if fast else ''}`", samples)


def row_noop_engine(bench: Bench, t: Target) -> None:
    """The no-op index with the engine running: forwarded, run there (its first, untimed run
    opens the vault in the engine)."""
    fast = [] if t.both_passes else ["--fast"]
    command = bench.vaultctx("index", *where(t), "--json", *fast)
    with engine_running(bench):
        samples = bench.repeat(lambda: bench.run(command, index_seconds))
    report(t.name, f"no-op `vaultctx index{' --fast' if fast else ''}`, engine running", samples)


def search_rows(bench: Bench, t: Target, query: str, label: str) -> None:
    for mode in ("hybrid", "bm25"):
        command = bench.vaultctx("search", query, *where(t), "--json", "--mode", mode)
        samples = bench.repeat(partial(bench.run, command, search_seconds))
        report(t.name, f"{label} ({mode})", samples)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def http_server(bench: Bench, t: Target) -> Iterator[None]:
    """``vaultctx serve --http`` for the vault, up and answering, stopped (by its pid) after."""
    port = free_port()
    command = bench.vaultctx("serve", "--http", "--port", str(port), *where(t))
    server = subprocess.Popen(
        command, env=bench.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise SystemExit(f"serve --http exited: {server.stderr.read()[-800:]}")  # type: ignore[union-attr]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("serve --http did not listen within 120 s") from None
                time.sleep(0.1)
        time.sleep(2)  # let its warm-up start as it would for a server left running
        yield
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def row_search(bench: Bench, t: Target) -> None:
    search_rows(bench, t, QUERY, "cold `vaultctx search`")


def row_search_server(bench: Bench, t: Target) -> None:
    with http_server(bench, t):
        search_rows(bench, t, QUERY, "`vaultctx search` with `serve --http` running")


@contextmanager
def engine_running(bench: Bench) -> Iterator[None]:
    """The user's engine, started in a private runtime folder, for this block's commands."""
    import tempfile

    saved = bench.env
    with tempfile.TemporaryDirectory(prefix="vx-bench-") as folder:
        bench.env = {**saved, "VAULTCTX_ENGINE": "on", "VAULTCTX_RUNTIME_DIR": f"{folder}/rt"}
        try:
            bench.run(bench.vaultctx("engine", "start"))
            yield
        finally:
            subprocess.run(bench.vaultctx("engine", "stop"), env=bench.env, capture_output=True)
            bench.env = saved


def row_search_engine(bench: Bench, t: Target) -> None:
    with engine_running(bench):
        search_rows(bench, t, QUERY, "`vaultctx search` with the engine running")


def row_ask_engine(bench: Bench, t: Target) -> None:
    """``ask`` spawn → first byte at the backend (the OpenAI wire fake), the engine running,
    next to ``--no-engine`` runs (bench/ask_engine.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ask_engine import first_byte, summary

    timings = first_byte(bench.env, t.vault, t.db, bench.runs)
    for name, values in timings.items():
        line(t.name, f"`ask` spawn -> first byte at the backend, {name}", summary(values))


def kiwi_state(bench: Bench) -> str:
    probe = "import importlib.util as u; print(u.find_spec('kiwipiepy') is not None)"
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=bench.env
    ).stdout.strip()
    return "kiwipiepy installed" if found == "True" else "kiwipiepy NOT installed (bigrams)"


def row_korean(bench: Bench, t: Target) -> None:
    state = kiwi_state(bench)
    search_rows(bench, t, KOREAN_QUERY, f"cold Korean `vaultctx search`, {state}")
    with http_server(bench, t):
        search_rows(bench, t, KOREAN_QUERY, f"Korean search with `serve --http`, {state}")


class McpRun(NamedTuple):
    initialize: float
    first_search: float
    peak_rss_mb: float
    notices: str


def mcp_once(bench: Bench, t: Target, settle: float, *, rss: bool) -> McpRun:
    """A minimal stdio client (newline-delimited JSON-RPC), so the server's pid is known."""
    server = subprocess.Popen(
        bench.vaultctx("serve", *where(t)),
        env=bench.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def answer(request_id: int) -> dict[str, Any]:
        while True:
            raw = stdout.readline()
            if not raw:
                raise SystemExit(f"the MCP server exited ({server.wait()})")
            message = json.loads(raw)
            if message.get("id") == request_id:
                if "error" in message:
                    raise SystemExit(f"MCP error: {message['error']}")
                return dict(message["result"])

    def search(request_id: int) -> dict[str, Any]:
        arguments = {"query": QUERY}
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": "obsidian_search", "arguments": arguments},
            }
        )
        return answer(request_id)

    try:
        started = time.perf_counter()
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "wallclock", "version": "1"},
                },
            }
        )
        answer(1)
        initialized = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        result = search(2)
        searched = time.perf_counter()
        notices = json.dumps(result.get("structuredContent", {}).get("notices", []))
        peak = 0.0
        if rss:
            time.sleep(settle)
            search(3)
            status = Path(f"/proc/{server.pid}/status").read_text()
            peak = next(
                int(row.split()[1]) / 1024 for row in status.splitlines() if row.startswith("VmHWM")
            )
        return McpRun(initialized - started, searched - initialized, peak, notices)
    finally:
        stdin.close()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def row_mcp(bench: Bench, t: Target, settle: float) -> None:
    mcp_once(bench, t, settle, rss=False)  # warms the OS file cache
    runs = [mcp_once(bench, t, settle, rss=False) for _ in range(bench.runs)]
    report(
        t.name,
        "MCP spawn -> `initialize` answered",
        [Sample(r.initialize, 0.0, None) for r in runs],
        cpu=False,
    )
    report(
        t.name,
        "MCP first `obsidian_search` right after the handshake",
        [Sample(r.first_search, 0.0, None) for r in runs],
        cpu=False,
    )
    if runs[-1].notices not in ("", "[]"):
        line(t.name, "MCP first search notices (last run)", runs[-1].notices)
    rss_runs = max(1, min(bench.runs, 3))  # each waits --settle seconds; RSS varies little
    peaks = [mcp_once(bench, t, settle, rss=True).peak_rss_mb for _ in range(rss_runs)]
    line(
        t.name,
        f"MCP server peak RSS (VmHWM after 2 searches, {settle:.0f} s apart)",
        f"median {statistics.median(peaks):,.0f} MB (max {max(peaks):,.0f}); {rss_runs} runs",
    )


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(row.split()[1]) / 1024 for row in status.splitlines() if row.startswith(field))


def three_relays(bench: Bench, t: Target) -> str:
    """Three ``vaultctx serve`` relays on one vault, each after a search: their RSS and the
    engine's, which holds the one copy of the index and models."""
    client = {"name": "wallclock", "version": "1"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    search = {"name": "obsidian_search", "arguments": {"query": QUERY}}
    relays = [
        subprocess.Popen(
            bench.vaultctx("serve", *where(t)),
            env=bench.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(3)
    ]
    try:
        for relay in relays:
            assert relay.stdin is not None and relay.stdout is not None
            for number, method, params in ((1, "initialize", hello), (2, "tools/call", search)):
                call = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
                relay.stdin.write(json.dumps(call).encode() + b"\n")
                relay.stdin.flush()
                while json.loads(relay.stdout.readline()).get("id") != number:
                    pass
        folder = Path(bench.env["VAULTCTX_RUNTIME_DIR"])
        engine = rss_mb(int((folder / "engine.pid").read_text()))
        sizes = [rss_mb(relay.pid) for relay in relays]
    finally:
        for relay in relays:
            assert relay.stdin is not None
            relay.stdin.close()
            relay.wait(timeout=30)
    each = " + ".join(f"{size:.0f}" for size in sizes)
    return f"relays {each} MB, engine {engine:.0f} MB: total {sum(sizes) + engine:.0f} MB"


def initialize_then_eof(bench: Bench, t: Target) -> list[Sample]:
    """Whole ``vaultctx serve`` processes given ``initialize`` and then end of input: spawn to
    exit, wall and CPU (the CPU figure holds on a loaded machine, where wall times do not)."""
    client = {"name": "wallclock", "version": "1"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    command = bench.vaultctx("serve", *where(t))

    def once() -> Sample:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            command, input=json.dumps(message) + "\n", capture_output=True, text=True, env=bench.env
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if '"serverInfo"' not in done.stdout:
            raise SystemExit(f"no initialize answer: {done.stderr[-800:]}")
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return Sample(wall, cpu, None)

    return bench.repeat(once)


def row_mcp_engine(bench: Bench, t: Target) -> None:
    report(
        "-",
        "bare `python -c pass`",
        bench.repeat(lambda: bench.run([sys.executable, "-c", "pass"])),
    )
    with engine_running(bench):
        deadline = time.monotonic() + 300  # the engine opens the vault and loads its models
        while mcp_once(bench, t, 0.0, rss=False).notices not in ("", "[]"):
            if time.monotonic() > deadline:
                raise SystemExit("the engine's models did not load within 300 s")
            time.sleep(1)
        warm = [mcp_once(bench, t, 0.0, rss=False) for _ in range(bench.runs)]
        label = "MCP spawn -> `initialize` answered, engine running"
        report(t.name, label, [Sample(r.initialize, 0.0, None) for r in warm], cpu=False)
        label = "MCP first hybrid `obsidian_search` after the handshake, engine warm"
        report(t.name, label, [Sample(r.first_search, 0.0, None) for r in warm], cpu=False)
        line(t.name, "its notices (every run)", json.dumps(sorted({r.notices for r in warm})))
        line(t.name, "three MCP clients on one vault, RSS", three_relays(bench, t))
        label = "`serve` given `initialize`, then end of input, engine running (whole process)"
        report(t.name, label, initialize_then_eof(bench, t))
        saved = bench.env
        bench.env = {**saved, "VAULTCTX_ENGINE": "off"}
        label = "the same in-process (`VAULTCTX_ENGINE=off`: the server before the relay)"
        report(t.name, label, initialize_then_eof(bench, t))
        bench.env = saved
        cold = []
        for _ in range(bench.runs):
            subprocess.run(bench.vaultctx("engine", "stop"), env=bench.env, capture_output=True)
            cold.append(mcp_once(bench, t, 0.0, rss=False))
        label = "MCP spawn -> `initialize` answered, cold machine (no engine)"
        report(t.name, label, [Sample(r.initialize, 0.0, None) for r in cold], cpu=False)
        label = "MCP first `obsidian_search`, cold machine (the relay starts the engine)"
        report(t.name, label, [Sample(r.first_search, 0.0, None) for r in cold], cpu=False)


def row_full_index(bench: Bench, t: Target, runs: int) -> None:
    scratch = cache_dir(bench.src) / f"{t.name}-full-scratch.db"

    def once() -> Sample:
        for leftover in scratch.parent.glob(scratch.name + "*"):
            leftover.unlink()
        command = bench.vaultctx("index", *where(t, scratch), "--json", "--fast")
        return bench.run(command, index_seconds)

    samples = [once() for _ in range(runs)]  # no warm-up run: each run is long
    report(t.name, "full `vaultctx index --fast` (pass 1), CPU incl. workers", samples)
    for leftover in scratch.parent.glob(scratch.name + "*"):
        leftover.unlink()


def row_pass2(bench: Bench, t: Target, seconds: float) -> None:
    """Pass 2 on a copy of the pass-1 index, stopped after ``seconds`` (the rate is the run's
    own phase figure: chunks embedded / quality_embed seconds)."""
    scratch = cache_dir(bench.src) / f"{t.name}-pass2-scratch.db"
    for leftover in scratch.parent.glob(scratch.name + "*"):
        leftover.unlink()
    shutil.copyfile(t.pass1_db, scratch)
    started = time.perf_counter()
    process = subprocess.Popen(
        bench.vaultctx("index", *where(t, scratch), "--json"),
        env=bench.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        out, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)  # the first Ctrl-C keeps the work done
        out, _ = process.communicate(timeout=120)
    wall = time.perf_counter() - started
    summary = json.loads(out)
    done = summary["chunks"]["quality_embedded"]
    phase = summary["phase_seconds"].get("quality_embed", 0.0)
    rate = done / phase if phase else 0.0
    remaining = summary["chunks"]["quality_remaining"]
    line(
        t.name,
        "pass 2 (transformer vectors)",
        f"{rate:,.1f} chunks/s in the phase ({done:,} chunks in {phase:.1f} s; "
        f"{remaining:,} left unembedded; process wall {wall:.1f} s)",
    )
    for leftover in scratch.parent.glob(scratch.name + "*"):
        leftover.unlink()


def compare_rows(old: Bench, new: Bench, name: str, rows: list[str]) -> None:
    """The ``noop`` and ``search`` rows of two trees, one run of each in turn."""
    old_t, new_t = target(old, name), target(new, name)
    commands: list[tuple[str, Callable[[Bench, Target], list[str]], Callable[[str], float]]] = []
    if "noop" in rows:
        fast = [] if new_t.both_passes else ["--fast"]
        label = f"no-op `vaultctx index{' --fast' if fast else ''}`"
        commands.append(
            (label, lambda b, t: b.vaultctx("index", *where(t), "--json", *fast), index_seconds)
        )
    if "search" in rows:
        for mode in ("hybrid", "bm25"):
            commands.append(
                (
                    f"cold `vaultctx search` ({mode})",
                    partial(_search_command, mode=mode),
                    search_seconds,
                )
            )
    for label, command, inner in commands:
        pairs = [(old, command(old, old_t)), (new, command(new, new_t))]
        for bench, argv in pairs:
            bench.run(argv, inner)  # warms the OS file cache and writes bytecode; not counted
        samples: dict[int, list[Sample]] = {0: [], 1: []}
        for _ in range(new.runs):
            for side, (bench, argv) in enumerate(pairs):
                samples[side].append(bench.run(argv, inner))
        report(name, f"{label} OLD", samples[0])
        report(name, f"{label} NEW", samples[1])
        ratio = statistics.median(s.wall for s in samples[1]) / statistics.median(
            s.wall for s in samples[0]
        )
        line(name, f"{label} new/old wall", f"{ratio:.2f}")


def _search_command(bench: Bench, t: Target, *, mode: str) -> list[str]:
    return bench.vaultctx("search", QUERY, *where(t), "--json", "--mode", mode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults", default="example,powershell")
    parser.add_argument("--rows", default=",".join(ROWS), help=f"any of {', '.join(ROWS)}")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--index-runs", type=int, default=3, help="runs of the full index")
    parser.add_argument("--pass2-seconds", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before the RSS read")
    parser.add_argument("--src", type=Path, default=REPO / "src", help="source tree to time")
    parser.add_argument(
        "--compare", type=Path, help="an older source tree: noop and search rows, alternating"
    )
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = set(rows) - set(ROWS)
    if unknown:
        raise SystemExit(f"unknown rows {sorted(unknown)}: use {', '.join(ROWS)}")
    bench = Bench(args.src.resolve(), args.runs)
    head = subprocess.run(
        ["git", "-C", str(args.src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"src {bench.src} (git {head or '-'}); load {load()}", flush=True)
    if args.compare is not None:
        old = Bench(args.compare.resolve(), args.runs)
        print(f"compared with {old.src}", flush=True)
        for name in [v.strip() for v in args.vaults.split(",") if v.strip()]:
            compare_rows(old, bench, name, rows)
        print(f"done; load {load()}")
        return
    for name in [v.strip() for v in args.vaults.split(",") if v.strip()]:
        t = target(bench, name)
        for row in rows:
            if row == "noop":
                row_noop(bench, t)
            elif row == "noop-engine":
                row_noop_engine(bench, t)
            elif row == "search":
                row_search(bench, t)
            elif row == "search-server":
                row_search_server(bench, t)
            elif row == "search-engine":
                row_search_engine(bench, t)
            elif row == "ask-engine":
                row_ask_engine(bench, t)
            elif row == "korean":
                row_korean(bench, t)
            elif row == "mcp":
                row_mcp(bench, t, args.settle)
            elif row == "mcp-engine":
                row_mcp_engine(bench, t)
            elif row == "full-index":
                row_full_index(bench, t, args.index_runs)
            elif row == "pass2":
                row_pass2(bench, t, args.pass2_seconds)
    print(f"done; load {load()}")


if __name__ == "__main__":
    main()
