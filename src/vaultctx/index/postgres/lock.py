"""One ``vaultctx index`` at a time per vault on PostgreSQL, across machines.

Where the SQLite store takes ``flock`` on a file beside the index (``run_lock.py``), this takes a
session advisory lock keyed by the vault's schema, on a connection of its own held for the run:
two machines indexing one vault exclude each other, and the server drops the lock when the
holder's connection ends (the process died, the network went), so a crash never leaves it stuck.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vaultctx.db_location import PostgresLocation
from vaultctx.index.database import IndexUnreachableError
from vaultctx.index.run_lock import HeldLock, LockHeldError


class AdvisoryLock(HeldLock):
    def __init__(self, location: PostgresLocation) -> None:
        self._location = location
        self._conn: Any = None

    def acquire(self) -> None:
        """Take the lock now or raise ``LockHeldError``, as ``RunLock.acquire``."""
        from vaultctx.index.postgres.store import _connect, _psycopg, schema_lock_key

        psycopg = _psycopg()
        try:
            conn = _connect(self._location)
        except psycopg.OperationalError as exc:
            raise IndexUnreachableError(
                f"cannot connect to the index at {self._location} ({exc})",
                "check that the server is running and the URL is right",
            ) from exc
        key = schema_lock_key(self._location, "index")
        taken = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]
        if not taken:
            conn.close()
            raise LockHeldError(Path(str(self._location)), "an advisory lock in the database")
        self._conn = conn

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()  # ends the session, which releases its advisory locks
