"""Crash safety: kill -9 a full index at random moments, many times (issue "Index core").

Run: .venv/bin/python bench/crash_index.py [--kills 100] [--max-delay 8]
After every kill: SQLite's integrity_check must say ok. At the end an incremental run must yield
exactly the chunks (and one vector per chunk) of a clean full index of the same vault.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import apsw

from corpora import powershell_corpus

VAULTCTX = str(Path(sys.executable).with_name("vaultctx"))


def index_cmd(vault: Path, db: Path, *extra: str) -> list[str]:
    return [VAULTCTX, "index", "--vault", str(vault), "--db", str(db), "--quiet", "--fast", *extra]


def chunk_rows(db: Path) -> set[tuple[object, ...]]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return set(
            conn.execute(
                "SELECT f.path, c.ordinal, c.section, c.body, c.heading_context "
                "FROM chunks c JOIN files f ON f.id = c.file_id"
            )
        )
    finally:
        conn.close()


def check(db: Path) -> tuple[str, int, int]:
    conn = apsw.Connection(str(db))
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        verdict = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
        conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        chunks = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        vectors = int(conn.execute("SELECT count(*) FROM chunk_vecs").fetchone()[0])
        return verdict, chunks, vectors
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--max-delay", type=float, default=8.0)
    args = parser.parse_args()
    vault = powershell_corpus()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        clean_db, crash_db = Path(tmp) / "clean.db", Path(tmp) / "crash.db"
        subprocess.run(index_cmd(vault, clean_db), check=True)
        expected = chunk_rows(clean_db)
        ok = 0
        for attempt in range(args.kills):
            process = subprocess.Popen(index_cmd(vault, crash_db, "--full"))
            time.sleep(rng.uniform(0.3, args.max_delay))
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            if crash_db.exists():
                verdict, _, _ = check(crash_db)
                ok += verdict == "ok"
                if verdict != "ok":
                    print(f"kill {attempt + 1}: integrity_check said {verdict}")
        print(
            f"kill -9 during full index: {args.kills} kills, integrity_check ok {ok}/{args.kills}"
        )
        subprocess.run(index_cmd(vault, crash_db), check=True)
        verdict, chunks, vectors = check(crash_db)
        same = chunk_rows(crash_db) == expected
        print(
            f"after recovery run: integrity {verdict}, chunks identical to clean index: {same} "
            f"({chunks} chunks, {vectors} vectors, clean {len(expected)} chunks)"
        )


if __name__ == "__main__":
    main()
