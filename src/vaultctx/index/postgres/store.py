"""``PostgresIndex``: one vault's index as a schema in a PostgreSQL database.

Several vaults share a database, one schema each (``PostgresLocation.schema``), recorded in the
registry table ``public.vaultctx_vaults`` with the vault's path and our ownership marker. The
marker is also the schema's comment: a schema (or a registry table) without it was not created by
vaultctx and is never written, migrated or dropped, the promise ``index/ownership.py`` makes for
SQLite files. Every statement runs with the vault's schema first on the search path, so the
portable statements of ``index/`` name their tables unqualified.

Readers never wait for an indexer (MVCC); the indexer writes in transactions, and every write
transaction bumps ``data_version``, the counter readers' caches compare.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from vaultctx.db_location import PostgresLocation
from vaultctx.index.database import (
    INDEX_ADVICE,
    POSTGRES,
    Capabilities,
    IndexDatabase,
    IndexFromNewerVersionError,
    IndexMissingError,
    IndexOutdatedError,
    IndexUnreachableError,
    IndexUnwritableError,
    NotAnIndexError,
)
from vaultctx.index.postgres.dialect import translate
from vaultctx.index.postgres.migrations import PG_MIGRATIONS
from vaultctx.index.schema import FTS_TABLE

log = logging.getLogger(__name__)

OWNER_MARKER = "vaultctx index v1"
REGISTRY = "public.vaultctx_vaults"
_PSYCOPG_ADVICE = "install the PostgreSQL driver: pip install 'psycopg[binary]'"
_REACH_ADVICE = (
    "check that the server is running and the URL, user and password are right (the password "
    "comes from your keyring or PGPASSFILE), or leave out --db to use the local index file"
)

# A search reads ``model_meta`` six times (analyser id, Korean flag, model hashes, ...); each read
# was a round trip, 6 of a hybrid search's 13 statements. A reader keeps the whole table for this
# long and reads it again in one statement after. Not keyed by ``data_version``: some of the
# indexer's meta writes are single statements outside ``transaction()``, which does not bump the
# counter, so a version-keyed copy could stay stale until the next write transaction. The bound
# is about one search on a loaded machine, so a meta change is seen by the next search, as if
# that search had started a moment earlier; and a reader that reads ``data_version`` (a search
# ranking vectors from memory does, each time) drops its copy at once when a write transaction
# has moved it.
META_FRESH_SECONDS = 0.25

# A reader sends the same few statements search after search, and psycopg prepares each after
# its fifth run; PostgreSQL then still plans it afresh for every run's parameters (a custom
# plan) whenever its estimate for the generic plan is higher, which for our array-parameter
# statements it always is. Planning the keyword ranking took 1.1 ms of the 1.9 ms it cost on a
# 1,749-chunk vault. A generic plan is made once per connection; their shapes do not depend on
# the words (index lookups driven from the query's terms), and at 130k chunks they measured
# the same p50/p95 as custom plans (docs/benchmarks.md, "Plans made once per reader").
READER_PLANS = "force_generic_plan"


def _connect(location: PostgresLocation) -> Any:
    """The one place a connection is opened (autocommit: transactions are explicit), with the
    password from the keyring or PGPASSFILE and every failure explained (connect.py). pgvector
    is checked by the store itself, which degrades to keyword search without it."""
    from vaultctx.index.postgres.connect import connect, parse_target

    config_file = None if location.config_file is None else Path(location.config_file)
    target = parse_target(
        location.url, from_command_line=config_file is None, config_file=config_file
    )
    return connect(target, autocommit=True, check_vector=False)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise IndexUnreachableError(
            "the PostgreSQL index needs the psycopg package, which is not installed",
            _PSYCOPG_ADVICE,
        ) from exc
    return psycopg


class PostgresIndex(IndexDatabase):
    """One vault's schema in PostgreSQL, behind the interface the SQLite file has."""

    dialect = POSTGRES
    path: PostgresLocation

    def __init__(
        self, conn: Any, location: PostgresLocation, readonly: bool, capabilities: Capabilities
    ) -> None:
        self.conn = conn
        self.path = location
        self.readonly = readonly
        self.capabilities = capabilities
        self._operational = _psycopg().OperationalError
        self._types: dict[str, dict[str, int]] = {}
        self._meta: dict[str, str] | None = None
        self._meta_read_at = 0.0
        self._meta_version: int | None = None

    @contextlib.contextmanager
    def reporting_loss(self) -> Iterator[None]:
        """A server gone mid-query (restarted, network down) is a state to fix, not a bug."""
        try:
            yield
        except self._operational as exc:
            raise IndexUnreachableError(
                f"lost the connection to the index at {self.path} ({_first_line(exc)})",
                _REACH_ADVICE,
            ) from exc

    def run(self, sql: str, params: Any = ()) -> Any:
        """A statement already in PostgreSQL's spelling (``%s`` placeholders)."""
        with self.reporting_loss():
            return self.conn.execute(sql, params)

    def execute(self, sql: str, params: Any = None) -> Any:
        statement = translate(sql)
        with self.reporting_loss():
            return self.conn.execute(statement.sql, statement.bind(params))

    def executemany(self, sql: str, rows: Any) -> Any:
        statement = translate(sql)
        cursor = self.conn.cursor()
        with self.reporting_loss():
            cursor.executemany(statement.sql, [statement.bind(row) for row in rows])
        return cursor

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Any]) -> None:
        """One binary COPY for the batch, each value sent in its column's binary form."""
        if not rows:
            return
        types = self._column_types(table, columns)
        statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
        with self.reporting_loss(), self.conn.cursor() as cursor, cursor.copy(statement) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)

    def insert_vectors(self, table: str, rows: Sequence[tuple[int, bytes]]) -> None:
        from vaultctx.index.postgres.vectors import copy_vectors

        with self.reporting_loss():
            copy_vectors(self.conn, table, rows)

    def _column_types(self, table: str, columns: Sequence[str]) -> list[int]:
        """The columns' type oids, which a binary COPY must be told (asked once per table)."""
        known = self._types.get(table)
        if known is None:
            known = {
                str(name): int(oid)
                for name, oid in self.run(
                    "SELECT attname, atttypid FROM pg_attribute "
                    "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
                    (table,),
                )
            }
            self._types[table] = known
        return [known[column] for column in columns]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self.reporting_loss(), self.conn.transaction():
            yield
            self.conn.execute("UPDATE data_version SET n = n + 1")

    def has_table(self, name: str) -> bool:
        if name == FTS_TABLE:  # FTS5's virtual table is three tables here (fts.py)
            name = "fts_terms"
        row = self.run(
            "SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = %s",
            (self.path.schema, name),
        ).fetchone()
        return row is not None

    def data_version(self) -> int:
        version = int(self.run("SELECT n FROM data_version").fetchone()[0])
        if version != self._meta_version:
            self._meta = None  # a write transaction since: the next meta read fetches again
        return version

    def meta(self, key: str) -> str | None:
        """A reader answers from its copy of ``model_meta`` (``META_FRESH_SECONDS``); a writer
        reads the row, so it always sees what it just wrote."""
        if not self.readonly:
            return super().meta(key)
        now = time.monotonic()
        if self._meta is None or now - self._meta_read_at > META_FRESH_SECONDS:
            rows = self.run(
                "SELECT d.n, m.key, m.value FROM data_version d LEFT JOIN model_meta m ON true"
            ).fetchall()
            self._meta = {str(k): str(v) for _, k, v in rows if k is not None}
            self._meta_version = int(rows[0][0]) if rows else None
            self._meta_read_at = now
        return self._meta.get(key)

    def integrity_problems(self, *, quick: bool = False) -> list[str]:
        """PostgreSQL checks its own pages; what can go wrong here is our bookkeeping: the
        keyword statistics BM25 reads must add up to the rows they count. The quick check (the
        indexer's, before it trusts an interrupted run's file) has nothing to look for: no page
        of ours can be half-written, as every write is a transaction."""
        from vaultctx.index.postgres.fts import statistics_problems

        if quick:
            return []

        return statistics_problems(self)

    def server_facts(self) -> dict[str, Any] | None:
        from vaultctx.index.postgres.connect import server_facts

        with self.reporting_loss():
            facts = server_facts(self.conn)
        return {**facts.as_dict(), "schema": self.path.schema}

    def close(self) -> None:
        self.conn.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def open_postgres(location: PostgresLocation, *, readonly: bool = False) -> PostgresIndex:
    """Open (and for writers create and migrate) the vault's schema; a schema or registry that
    vaultctx did not create raises ``NotAnIndexError`` before anything is written."""
    psycopg = _psycopg()
    try:
        conn = _connect(location)
    except psycopg.OperationalError as exc:
        raise IndexUnreachableError(
            f"cannot connect to the index at {location} ({_first_line(exc)})", _REACH_ADVICE
        ) from exc
    try:
        with _reporting(location, psycopg):
            vec_version = _vector_extension(conn, readonly)
            _check_registry(conn, location)
            _open_schema(conn, location, readonly)
            conn.execute(f'SET search_path TO "{location.schema}", public')
            # Our statements are short lookups: JIT compiling one (its cost estimate passes
            # jit_above_cost on a large vault) takes longer than running it.
            conn.execute("SET jit = off")
            if readonly:
                conn.execute(f"SET plan_cache_mode = {READER_PLANS}")
            _migrate_or_check(conn, location, readonly)
            if vec_version is not None:
                from vaultctx.index.postgres.vectors import register_halfvec

                register_halfvec(conn)
            version = conn.execute("SHOW server_version").fetchone()[0]
    except BaseException:
        conn.close()
        raise
    capabilities = Capabilities(f"PostgreSQL {version}", vec_version, True)
    return PostgresIndex(conn, location, readonly, capabilities)


@contextlib.contextmanager
def _reporting(location: PostgresLocation, psycopg: Any) -> Iterator[None]:
    try:
        yield
    except psycopg.errors.InsufficientPrivilege as exc:
        raise IndexUnwritableError(
            f"not allowed to write the index at {location} ({_first_line(exc)})",
            "ask the database's owner to grant your user CREATE on the database",
        ) from exc
    except psycopg.OperationalError as exc:
        raise IndexUnreachableError(
            f"lost the connection to the index at {location} ({_first_line(exc)})", _REACH_ADVICE
        ) from exc


def _vector_extension(conn: Any, readonly: bool) -> str | None:
    """pgvector's version, installing it when allowed; None (keyword search only) otherwise."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None and not readonly:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except Exception as exc:  # no rights, or pgvector not installed on the server
            log.warning("pgvector unavailable (%s): vector search disabled, BM25 only", exc)
            return None
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
    return None if row is None else str(row[0])


def _not_ours(what: str) -> NotAnIndexError:
    return NotAnIndexError(
        f"{what}, so it is not a vaultctx index; vaultctx never writes, migrates or drops what it "
        "did not create",
        "point --db at another database (or ask its owner which schema is yours)",
    )


def _check_registry(conn: Any, location: PostgresLocation) -> None:
    comment = conn.execute(
        "SELECT obj_description(c.oid, 'pg_class') FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relname = 'vaultctx_vaults'"
    ).fetchone()
    if comment is not None and comment[0] != OWNER_MARKER:
        raise _not_ours(f"the table {REGISTRY} in {location.url.split('@')[-1]} is not vaultctx's")


def _open_schema(conn: Any, location: PostgresLocation, readonly: bool) -> None:
    schema = location.schema
    row = conn.execute(
        "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s",
        (schema,),
    ).fetchone()
    if row is not None:
        if row[0] != OWNER_MARKER or not _registered(conn, schema):
            raise _not_ours(f"the schema {schema} of {location} was not created by vaultctx")
        return
    if readonly:
        raise IndexMissingError(f"no index at {location}", f"{INDEX_ADVICE} first")
    with conn.transaction():
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {REGISTRY} (schema_name text PRIMARY KEY, "
            "vault_path text NOT NULL, marker text NOT NULL, "
            "created_at timestamptz NOT NULL DEFAULT now())"
        )
        conn.execute(f"COMMENT ON TABLE {REGISTRY} IS '{OWNER_MARKER}'")
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f"COMMENT ON SCHEMA \"{schema}\" IS '{OWNER_MARKER}'")
        conn.execute(
            f"INSERT INTO {REGISTRY}(schema_name, vault_path, marker) VALUES (%s, %s, %s)",
            (schema, location.vault, OWNER_MARKER),
        )


def _registered(conn: Any, schema: str) -> bool:
    exists = conn.execute("SELECT to_regclass(%s)", (REGISTRY,)).fetchone()[0]
    if exists is None:
        return False
    row = conn.execute(
        f"SELECT marker FROM {REGISTRY} WHERE schema_name = %s", (schema,)
    ).fetchone()
    return row is not None and row[0] == OWNER_MARKER


def _applied(conn: Any) -> set[str]:
    if conn.execute("SELECT to_regclass('_migrations')").fetchone()[0] is None:
        return set()
    return {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}


def _migrate_or_check(conn: Any, location: PostgresLocation, readonly: bool) -> None:
    applied = _applied(conn)
    unknown = applied - {m.__name__ for m in PG_MIGRATIONS}
    if unknown:
        raise IndexFromNewerVersionError(
            f"the index at {location} was written by a newer vaultctx "
            f"(schema {sorted(unknown)[-1]})",
            "upgrade vaultctx (pip install -U vaultctx), or index into another database with --db",
        )
    pending = [m for m in PG_MIGRATIONS if m.__name__ not in applied]
    if not pending:
        return
    if readonly:
        if not applied:
            raise IndexMissingError(f"{location} holds no vaultctx index yet", INDEX_ADVICE)
        raise IndexOutdatedError(
            f"the index at {location} was built by an older vaultctx",
            f"{INDEX_ADVICE} to upgrade it",
        )
    with conn.transaction():
        # Two indexers opening a new vault at once: one migrates, the other then sees it done.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema_lock_key(location, "migrate"),))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS _migrations (name text PRIMARY KEY, applied_at timestamptz)"
        )
        done = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
        for migration in PG_MIGRATIONS:
            if migration.__name__ in done:
                continue
            migration(conn)
            conn.execute(
                "INSERT INTO _migrations(name, applied_at) VALUES (%s, now())",
                (migration.__name__,),
            )


def schema_lock_key(location: PostgresLocation, purpose: str) -> int:
    """A signed 64-bit advisory lock key for ``purpose`` on this vault's schema."""
    import hashlib

    digest = hashlib.sha256(f"vaultctx:{purpose}:{location.schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)
