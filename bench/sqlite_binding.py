"""Compare the two SQLite bindings that can load sqlite-vec everywhere: apsw and sqlean.py.

Prints one line per figure. Run: .venv/bin/python bench/sqlite_binding.py
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlite_vec

WORDS = [f"w{i}" for i in range(5000)]
ROWS = 20_000
DIM = 256


def _rows() -> list[tuple[int, str, bytes]]:
    rng = random.Random(1)
    import numpy as np

    vecs = np.random.default_rng(1).standard_normal((ROWS, DIM)).astype("float32")
    return [(i + 1, " ".join(rng.choices(WORDS, k=300)), vecs[i].tobytes()) for i in range(ROWS)]


def _exercise(name: str, conn: Any, execute_many: Any, rows: list[tuple[int, str, bytes]]) -> None:
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    conn.execute(
        f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{DIM}] distance_metric=cosine)"
    )
    start = time.perf_counter()
    execute_many("INSERT INTO t(rowid, body) VALUES (?, ?)", [(r[0], r[1]) for r in rows])
    execute_many("INSERT INTO v(rowid, embedding) VALUES (?, ?)", [(r[0], r[2]) for r in rows])
    print(f"{name} insert {ROWS} fts+vec rows: {time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    for i in range(200):
        list(
            conn.execute(
                "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 30", (WORDS[i],)
            )
        )
    print(f"{name} fts query: {(time.perf_counter() - start) / 200 * 1000:.2f} ms")
    start = time.perf_counter()
    for i in range(50):
        list(conn.execute("SELECT rowid FROM v WHERE embedding MATCH ? AND k = 30", (rows[i][2],)))
    print(f"{name} vec knn: {(time.perf_counter() - start) / 50 * 1000:.2f} ms")


def main() -> None:
    rows = _rows()
    with tempfile.TemporaryDirectory() as tmp:
        import apsw

        conn = apsw.Connection(str(Path(tmp) / "a.db"))
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        print(f"apsw sqlite version: {apsw.sqlite_lib_version()}")

        def apsw_many(sql: str, params: list[Any]) -> None:
            with conn:
                conn.executemany(sql, params)

        _exercise("apsw", conn, apsw_many, rows)

        import sqlean

        sconn = sqlean.connect(str(Path(tmp) / "s.db"))
        sconn.enable_load_extension(True)
        sconn.load_extension(sqlite_vec.loadable_path())
        print(f"sqlean sqlite version: {sqlean.sqlite_version}")

        def sqlean_many(sql: str, params: list[Any]) -> None:
            sconn.executemany(sql, params)
            sconn.commit()

        _exercise("sqlean", sconn, sqlean_many, rows)


if __name__ == "__main__":
    main()
