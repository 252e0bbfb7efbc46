"""An index read and changed behind vaultctx's back, on either store: what a disk image or a
database dump would show, and the edits an older vaultctx (or an attacker with the file or the
schema) could have made. The security tests that concern the index run over both stores with
these (``tests.postgres.conftest.location_for`` gives the location)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw

from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.index.text_codec import unpack_text

STORES = ["sqlite", "postgres"]


def stored_text(location: IndexLocation) -> str:
    """Everything stored for the index, lower-cased (PostgreSQL's keyword tables hold
    lower-cased tokens): the SQLite file and its WAL as bytes, or every row of the vault's schema
    and of the shared registry; and every chunk's text decompressed, which neither shows raw."""
    if isinstance(location, PostgresLocation):
        dumped = _postgres_rows(location)
    else:
        dumped = [
            Path(f"{location}{suffix}").read_bytes().decode("latin-1")
            for suffix in ("", "-wal")
            if Path(f"{location}{suffix}").exists()
        ]
    dumped += [unpack_text(row[0]) for row in rows(location, "SELECT body FROM chunks")]
    return "\n".join(dumped).lower()


def _postgres_rows(location: PostgresLocation) -> list[str]:
    import psycopg

    dumped: list[str] = []
    with psycopg.connect(location.url) as conn:
        for schema in (location.schema, "public"):
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)
            ).fetchall()
            for (table,) in tables:
                found = conn.execute(f'SELECT t::text FROM "{schema}"."{table}" t').fetchall()
                dumped += [str(row[0]) for row in found]
    return dumped


def rows(location: IndexLocation, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query (``?`` placeholders) run directly on the store."""
    if isinstance(location, PostgresLocation):
        import psycopg

        with psycopg.connect(location.url) as conn:
            conn.execute(f'SET search_path TO "{location.schema}", public')
            return [tuple(row) for row in conn.execute(sql.replace("?", "%s"), params)]
    db = apsw.Connection(str(location))
    try:
        return [tuple(row) for row in db.execute(sql, params)]
    finally:
        db.close()


def tamper(location: IndexLocation, *statements: tuple[str, tuple[Any, ...]]) -> None:
    """Run ``statements`` (``?`` placeholders) on the store directly, committed, as something
    other than this vaultctx would."""
    if isinstance(location, PostgresLocation):
        import psycopg

        with psycopg.connect(location.url) as conn:
            conn.execute(f'SET search_path TO "{location.schema}", public')
            for sql, params in statements:
                conn.execute(sql.replace("?", "%s"), params)
        return
    db = apsw.Connection(str(location))
    try:
        for sql, params in statements:
            db.execute(sql, params)
    finally:
        db.close()
