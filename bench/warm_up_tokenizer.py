"""What a warm process pays for its warm-up question over a vault with multilingual vectors.

Multilingual e5 tokenises a plain-ASCII question with a tokenizer of the question's own pieces
until its full tokenizer is built (embed/query_pieces.py): ~1.5 ms of CPU per question, for ever,
in a process that never meets anything else. The MCP server warms up with a question holding an
ellipsis, so the full tokenizer is built during the warm-up. The engine (engine/server.py
``WarmVault.warm``) and ``vaultctx ui`` warmed up with plain "warm up". This compares the two
warm-up questions, each in fresh processes run in turn (ABAB…), over the same index:

- RSS after the warm-up (vectors held in memory, as a long-lived process does);
- CPU and wall ms per English (plain-ASCII) question, and RSS after them;
- the first Korean question (the full tokenizer is built then, unless the warm-up did), CPU
  and wall ms per Korean question after it, and RSS at the end.

    PYTHONPATH=src .venv/bin/python bench/warm_up_tokenizer.py --vault DIR --db PATH [--rounds 3]

The figures in docs/benchmarks.md ("The warm-up question of the engine and the web UI") used
the ko-autorag vault and index that bench/multilingual_quality.py leaves in
/tmp/vaultctx-bench/multilingual (ko-autorag-vault, ko-e5-multilingual-auto.db), copied.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

WARM_UPS = ("warm up", "warm up \N{HORIZONTAL ELLIPSIS}")
ENGLISH = (
    "how do I cancel a contract",
    "what is the refund policy",
    "steps to reset a password",
    "quarterly revenue report",
    "who approves travel expenses",
    "data retention period",
    "how to file a complaint",
    "meeting notes template",
)
KOREAN = (
    "계약 해지 조건은 무엇인가요",
    "환불 정책 알려줘",
    "비밀번호를 재설정하는 방법",
    "분기별 매출 보고서",
    "출장비는 누가 승인하나요",
    "데이터 보관 기간",
    "민원을 제기하는 절차",
    "회의록 양식",
)
REPEATS = 6  # each question this many times, after one untimed pass


def rss_mb() -> float:
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return 0.0


def timed(search: Callable[[str], None], questions: tuple[str, ...]) -> tuple[float, float]:
    """(median CPU ms, median wall ms) per search of ``questions``, each ``REPEATS`` times."""
    cpu, wall = [], []
    for _ in range(REPEATS):
        for question in questions:
            started, started_cpu = time.perf_counter(), time.process_time()
            search(question)
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def child(vault: Path, db: Path, warm_up: str) -> dict[str, float]:
    """One warm process, as the engine's: warm up, then English questions, then Korean ones."""
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest

    handle = Vault(vault, db=db)
    figures: dict[str, float] = {}
    started = time.perf_counter()
    handle.search(SearchRequest(warm_up, limit=1, max_tokens=50))
    figures["warm_up_ms"] = (time.perf_counter() - started) * 1000
    handle.retriever().hold_vectors_in_memory(wait=True)
    figures["rss_warm"] = rss_mb()

    def search(question: str) -> None:
        handle.search(SearchRequest(question))

    for question in ENGLISH:  # untimed: the first pass reads pages into the cache
        search(question)
    figures["en_cpu_ms"], figures["en_wall_ms"] = timed(search, ENGLISH)
    figures["rss_after_en"] = rss_mb()
    started, started_cpu = time.perf_counter(), time.process_time()
    search(KOREAN[0])
    figures["first_ko_wall_ms"] = (time.perf_counter() - started) * 1000
    figures["first_ko_cpu_ms"] = (time.process_time() - started_cpu) * 1000
    for question in KOREAN[1:]:
        search(question)
    figures["ko_cpu_ms"], figures["ko_wall_ms"] = timed(search, KOREAN)
    figures["rss_end"] = rss_mb()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.vault, args.db, args.child)))
        return
    env = {**os.environ, "VAULTCTX_ENGINE": "off"}
    runs: dict[str, list[dict[str, float]]] = {warm_up: [] for warm_up in WARM_UPS}
    for _ in range(args.rounds):
        for warm_up in WARM_UPS:
            command = [sys.executable, __file__, "--vault", str(args.vault), "--db", str(args.db)]
            done = subprocess.run(
                [*command, "--child", warm_up], env=env, check=True, capture_output=True, text=True
            )
            runs[warm_up].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(warm_up, runs[warm_up][-1], flush=True)
    print(f"medians over {args.rounds} processes each; load {os.getloadavg()[0]:.2f}")
    for warm_up, figures in runs.items():
        medians = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
        print(f"{warm_up!r}: " + ", ".join(f"{key} {value:.1f}" for key, value in medians.items()))


if __name__ == "__main__":
    main()
