"""The index as the rest of vaultctx sees it: one interface, two stores.

``IndexDatabase`` is what every query function in ``index/`` takes. ``db.SqliteIndex`` (one file
per vault, the default) and ``postgres.store.PostgresIndex`` (a schema per vault in a shared
PostgreSQL) implement it; code above ``index/`` never learns which one it holds. Portable SQL is
written once, in SQLite's spelling with ``?`` placeholders; the PostgreSQL store translates it
in one place (``postgres/dialect.py``), and the few statements that differ (full-text search,
nearest vectors) choose their store by ``dialect``.

The errors live here too, so both stores raise the same classes with the same advice.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultctx.db_location import IndexLocation
from vaultctx.errors import VaultctxError

# Advice that does not know the vault; ``Vault`` names its own command instead (api.py).
INDEX_ADVICE = "run `vaultctx index --vault <your vault>`"
WRITABLE_ADVICE = "choose a writable location with --db or DB_PATH"
SQLITE = "sqlite"
POSTGRES = "postgres"


class IndexDatabaseError(VaultctxError):
    """Base of the errors this module raises; each suggestion names the fix."""


class IndexMissingError(IndexDatabaseError):
    """There is no index yet for this vault."""


class IndexOutdatedError(IndexMissingError):
    """The index predates this vaultctx's schema; readers cannot migrate it, the indexer can."""


class IndexUnwritableError(IndexDatabaseError):
    """The database file or its folder cannot be written."""


class IndexNeedsRebuildError(IndexDatabaseError):
    """Our own index file is corrupt; the vault can rebuild it."""


class NotAnIndexError(IndexDatabaseError):
    """The location holds something vaultctx did not create; it is never written, migrated or
    deleted."""


class IndexFromNewerVersionError(IndexDatabaseError):
    """A newer vaultctx wrote this index; rebuilding it would throw away what that one knows."""


class IndexUnreachableError(IndexDatabaseError):
    """The database server cannot be reached, or went away in the middle of a query."""


@dataclass(frozen=True)
class Capabilities:
    """What this store can do; searches degrade instead of failing when something is absent.

    ``sqlite_version`` is the engine's version (PostgreSQL's for that store), ``vec_version``
    sqlite-vec's or pgvector's, ``fts5`` whether keyword search works."""

    sqlite_version: str
    vec_version: str | None
    fts5: bool

    @property
    def vectors(self) -> bool:
        return self.vec_version is not None


class IndexDatabase:
    """A connection to one vault's index with its capabilities probed once.

    The methods are those every store implements; ``execute`` returns a cursor that iterates
    rows as tuples and has ``fetchone``/``fetchall``.
    """

    dialect: str = SQLITE
    path: IndexLocation
    readonly: bool
    capabilities: Capabilities

    def execute(self, sql: str, params: Any = None) -> Any:
        raise NotImplementedError

    def executemany(self, sql: str, rows: Any) -> Any:
        raise NotImplementedError

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Any]) -> None:
        """Append a batch of rows (the indexer's): PostgreSQL streams them with COPY, where an
        INSERT per row was most of a large index run's write time."""
        if rows:
            marks = ", ".join("?" for _ in columns)
            self.executemany(f"INSERT INTO {table}({', '.join(columns)}) VALUES ({marks})", rows)

    def insert_vectors(self, table: str, rows: Sequence[tuple[int, bytes]]) -> None:
        """Append ``(chunk id, int8 vector)`` rows to a vector table."""
        if rows:
            self.executemany(f"INSERT INTO {table}(rowid, embedding) VALUES (?, vec_int8(?))", rows)

    def scalar(self, sql: str, params: Any = None) -> Any:
        """The first column of the first row; for aggregate queries that always return one."""
        row = self.execute(sql, params).fetchone()
        if row is None:
            raise LookupError(f"query returned no row: {sql}")
        return row[0]

    def meta(self, key: str) -> str | None:
        row = self.execute("SELECT value FROM model_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.execute(
            "INSERT INTO model_meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def meta_json(self, key: str) -> Any:
        raw = self.meta(key)
        return None if raw is None else json.loads(raw)

    def has_table(self, name: str) -> bool:
        raise NotImplementedError

    def data_version(self) -> int:
        """Changes exactly when another connection has committed: caches of the index compare it
        to know they are stale."""
        raise NotImplementedError

    def integrity_problems(self, *, quick: bool = False) -> list[str]:
        """Empty when the store's own check passes."""
        raise NotImplementedError

    def server_facts(self) -> dict[str, Any] | None:
        """What ``status`` and ``doctor`` show about a database server (its version, pgvector's,
        TLS, the vault's schema); None for a local file, which has no server."""
        return None

    def close(self) -> None:
        raise NotImplementedError
