"""Many MCP clients at once against one ``vaultctx serve --http``: errors, latency, server memory,
and the CPU each search costs the server, PostgreSQL and the clients.

Starts ``python -m vaultctx serve --http`` (from ``--src``, default this checkout's) on a
loopback port (no token: loopback only) over the given index, then runs ``--clients`` client
processes at once. Each speaks MCP's streamable HTTP with raw JSON-RPC over ``http.client``
(``initialize``, ``notifications/initialized``, then ``--searches`` calls of
``obsidian_search``), so the figures are the server's, not an SDK's. Questions: the built-in
ten, ``--queries FILE`` (one a line) or ``--titles DIR`` (its notes' titles); drawn at random,
or with ``--distinct`` each client walks its own share, so no question is asked twice while
there are more (a cache of query vectors then gains nothing). ``--answers FILE`` first writes
each question's answer once, keys sorted: ``cmp`` two such files from two trees to check that a
change kept every answer byte for byte.

The server's resident memory is sampled every half second from ``/proc/<pid>/status``; CPU
seconds are utime + stime from ``/proc`` for the server and, when the URL's host is a Unix-socket
folder holding the postmaster's lock file (bench/pg_temp_server.py), for PostgreSQL's
processes; each client measures its own (``time.process_time``).

Prints one line per figure: errors, searches per second, latency p50/p95/p99 over every call,
CPU per search of each side, server RSS at the first and last tenth of the run and its peak.
"Flat" means the last tenth's RSS is within 10 % of the first tenth's (after the first searches
warmed the server).

    PYTHONPATH=src .venv/bin/python bench/http_concurrency.py --vault DIR --db PATH_OR_URL \\
        [--clients 20] [--searches 2000] [--queries FILE | --titles DIR] [--distinct] \\
        [--answers FILE] [--src OTHER_TREE/src]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "how do I get the list of running services",
    "Get-ChildItem recurse filter",
    "rotate the api keys",
    "set execution policy remote signed",
    "firewall rule for inbound port",
    "export users to csv",
    "why did the database lock up",
    "reciprocal rank fusion",
    "restart a remote computer",
    "read a json file",
]
# The notice a search carries while the server's models are still loading (bench/serve_memory.py).
LOADING = "vector models are still loading"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
PROTOCOL = "2025-06-18"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Connection:
    """One keep-alive HTTP/1.1 connection speaking raw JSON-RPC: ``http.client``, so a client
    costs the shared cores as little as it can (httpx2 took ~2.4 ms of CPU per search, a fifth
    of what the server spent)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._path = parts.path
        self._http = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=120)
        self._headers = dict(HEADERS)

    def post(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The JSON-RPC answer, whether the server sent JSON or one SSE event (None for 202)."""
        self._http.request("POST", self._path, json.dumps(message), self._headers)
        response = self._http.getresponse()
        body = response.read()
        if response.status == 202:
            return None
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}: {body[:200]!r}")
        if session := response.getheader("mcp-session-id"):
            self._headers["mcp-session-id"] = session
            self._headers["mcp-protocol-version"] = PROTOCOL
        if response.getheader("content-type", "").startswith("text/event-stream"):
            for line in body.decode().splitlines():
                if line.startswith("data:"):
                    return dict(json.loads(line[5:]))
            raise ValueError("an event stream without data")
        return dict(json.loads(body))

    def open_session(self) -> None:
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        }
        self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def search(self, n: int, query: str) -> dict[str, Any]:
        arguments = {"query": query}
        params = {"name": "obsidian_search", "arguments": arguments}
        answer = self.post({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
        return answer or {}

    def close(self) -> None:
        self._http.close()


def _questions(queries: list[str], searches: int, seed: int, distinct: int) -> list[str]:
    """Drawn at random, or with ``distinct`` clients: client ``seed`` walks its own share of the
    questions in order (no two clients ask the same one; a share shorter than ``searches`` is
    walked again)."""
    if distinct:
        share = queries[seed::distinct]
        return [share[n % len(share)] for n in range(searches)]
    rng = random.Random(seed)
    return [rng.choice(queries) for _ in range(searches)]


def _client(
    url: str, searches: int, queries: list[str], seed: int, distinct: int = 0
) -> dict[str, Any]:
    """One MCP client: its latencies (ms), errors and CPU seconds."""
    latencies: list[float] = []
    errors: list[str] = []
    cold = 0
    cpu_started = time.process_time()
    connection = _Connection(url)
    try:
        connection.open_session()
        for n, query in enumerate(_questions(queries, searches, seed, distinct), start=1):
            started = time.perf_counter()
            try:
                answer = connection.search(n, query)
            except Exception as exc:  # a bench counts every failure, whatever it is
                errors.append(f"{type(exc).__name__}: {exc}")
                connection.close()
                connection = _Connection(url)
                connection.open_session()
                continue
            latencies.append((time.perf_counter() - started) * 1000)
            result = answer.get("result") or {}
            if "error" in answer or result.get("isError"):
                errors.append(json.dumps(answer)[:200])
            elif LOADING in json.dumps(result):
                cold += 1
    finally:
        connection.close()
    cpu = time.process_time() - cpu_started
    return {"latencies": latencies, "errors": errors, "cold": cold, "cpu": cpu}


def _write_answers(url: str, queries: list[str], path: Path) -> None:
    """Each distinct question's answer, one JSON line each, keys sorted: two servers (two
    trees) answer alike when ``cmp`` finds the files equal."""
    connection = _Connection(url)
    try:
        connection.open_session()
        lines = []
        for n, query in enumerate(dict.fromkeys(queries), start=1):
            result = connection.search(n, query).get("result")
            lines.append(json.dumps({"query": query, "result": result}, sort_keys=True))
    finally:
        connection.close()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cpu_seconds(pid: int) -> float:
    """utime + stime of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _postgres_pids(db: str) -> list[int]:
    """The PostgreSQL server's processes (postmaster and its children) when ``db`` names a
    Unix-socket folder that holds the postmaster's lock file, as bench/pg_temp_server.py's does."""
    host = parse_qs(urlsplit(db).query).get("host", [""])[0]
    locks = sorted(Path(host).glob(".s.PGSQL.*.lock")) if host else []
    if not locks:
        return []
    postmaster = int(locks[0].read_text().split()[0])
    pids = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                pids.append(int(stat.parent.name))
    return pids


def _rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _sample_rss(pid: int, samples: list[int], stop: threading.Event) -> None:
    while not stop.wait(0.5):
        rss = _rss_kb(pid)
        if rss is not None:
            samples.append(rss)


def _start_server(vault: Path, db: str, port: int, log: Any, src: Path) -> subprocess.Popen[bytes]:
    """The server's stderr goes to a file: a pipe nobody reads fills up (64 KB of log lines)
    and blocks the server mid-request, which measured as a hang, not as the server's speed."""
    env = {**os.environ, "PYTHONPATH": str(src), "VAULTCTX_ENGINE": "off"}
    args = ["serve", "--http", "--no-token", "--port", str(port), "--vault", str(vault)]
    return subprocess.Popen(
        [sys.executable, "-m", "vaultctx", *args, "--db", db],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )


def _wait_ready(url: str, process: subprocess.Popen[bytes], queries: list[str], log: Path) -> None:
    """Until one whole search answers with vectors loaded (a warm server is what is measured)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited: {log.read_text()[-4000:]}")
        try:
            result = _client(url, 3, queries, 0)
            if not result["errors"] and not result["cold"]:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("server not ready within 300 s")


def _client_questions(args: argparse.Namespace, queries: list[str], seed: int) -> list[str]:
    return _questions(queries, args.searches, seed, args.clients if args.distinct else 0)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _queries(listed: Path | None, titles: Path | None) -> list[str]:
    """The bench's questions: a file's lines, a folder's note titles (file names, shuffled with a
    fixed seed), or the built-in ten."""
    if titles is not None:
        names = sorted({note.stem for note in titles.rglob("*.md")})
        random.Random(0).shuffle(names)
        return names
    if listed is not None:
        return [q for q in listed.read_text().splitlines() if q.strip()]
    return QUERIES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--db", required=True, help="an index file or a postgresql:// URL")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--searches", type=int, default=2000)
    parser.add_argument("--queries", type=Path, help="one query per line")
    parser.add_argument("--titles", type=Path, help="ask the titles of this folder's notes")
    parser.add_argument(
        "--distinct", action="store_true", help="no question asked twice while there are more"
    )
    parser.add_argument("--answers", type=Path, help="write each question's answer here first")
    parser.add_argument("--src", type=Path, default=REPO / "src", help="the server's source tree")
    args = parser.parse_args()
    queries = _queries(args.queries, args.titles)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = Path(tempfile.mkdtemp(prefix="vaultctx-serve-")) / "server.log"
    log_file = log.open("wb")
    server = _start_server(args.vault, args.db, port, log_file, args.src)
    samples: list[int] = []
    stop = threading.Event()
    try:
        _wait_ready(url, server, queries, log)
        if args.answers:
            _write_answers(url, queries, args.answers)
        sampler = threading.Thread(target=_sample_rss, args=(server.pid, samples, stop))
        sampler.start()
        server_cpu = _cpu_seconds(server.pid)
        pg_cpu = {pid: _cpu_seconds(pid) for pid in _postgres_pids(args.db)}
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(args.clients) as pool:
            results = pool.starmap(
                _client,
                [
                    (url, args.searches, queries, seed, args.clients if args.distinct else 0)
                    for seed in range(args.clients)
                ],
            )
        elapsed = time.perf_counter() - started
        server_cpu = _cpu_seconds(server.pid) - server_cpu
        # Backends started during the run count from zero; those that ended are not seen.
        pg_cpu_used = sum(_cpu_seconds(p) - pg_cpu.get(p, 0.0) for p in _postgres_pids(args.db))
        stop.set()
        sampler.join()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log_file.close()
    latencies = [ms for r in results for ms in r["latencies"]]
    errors = [e for r in results for e in r["errors"]]
    cold = sum(r["cold"] for r in results)
    tenth = max(1, len(samples) // 10)
    first, last = statistics.median(samples[:tenth]), statistics.median(samples[-tenth:])
    print(f"clients {args.clients} searches_each {args.searches} db {args.db.split('?')[0]}")
    asked = len(latencies) + len(errors)
    distinct = len({q for c in range(args.clients) for q in _client_questions(args, queries, c)})
    print(f"questions {len(queries)} distinct_asked {distinct} of {asked} src {args.src}")
    print(f"errors {len(errors)}" + (f" first: {errors[0]}" if errors else ""))
    print(f"keyword_only_answers {cold}")
    print(f"searches_per_s {len(latencies) / elapsed:.1f} over {elapsed:.1f} s")
    for q in (0.5, 0.95, 0.99):
        print(f"latency_p{int(q * 100)}_ms {_percentile(latencies, q):.1f}")
    done = max(1, len(latencies))
    client_cpu = sum(r["cpu"] for r in results)
    for name, seconds in (
        ("server", server_cpu),
        ("postgres", pg_cpu_used),
        ("clients", client_cpu),
    ):
        print(f"cpu_{name}_s {seconds:.1f} per_search_ms {seconds * 1000 / done:.2f}")
    print(f"server_rss_first_tenth_mb {first / 1024:.1f}")
    print(f"server_rss_last_tenth_mb {last / 1024:.1f}")
    print(f"server_rss_peak_mb {max(samples) / 1024:.1f}")
    print(f"server_rss_flat {'yes' if last <= first * 1.10 else 'no'}")
    print(f"server_log_lines {len(log.read_text().splitlines())} ({log})")
    print(f"load_average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
