"""The test PostgreSQL starts, has pgvector, and gives each test an empty database of its own."""

from __future__ import annotations

import psycopg

from tests.postgres_server import PostgresServer


def test_each_test_gets_an_empty_database_with_pgvector(
    postgres_url: str, postgres_server: PostgresServer
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    assert version is not None and tuple(int(p) for p in version[0].split(".")) >= (0, 8)
    assert tables == (0,)
    assert postgres_url != postgres_server.admin_url
