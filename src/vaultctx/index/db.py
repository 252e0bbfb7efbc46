"""Opening the index database: binding, pragmas, schema, capabilities.

We use ``apsw`` rather than the stdlib ``sqlite3``: many Python builds cannot load extensions, so
sqlite-vec would not load, and apsw bundles a current SQLite (3.54 here, with FTS5) on Linux, macOS
and Windows. Measured against ``sqlean.py`` in ``bench/sqlite_binding.py`` (docs/benchmarks.md):
apsw was faster on inserts, FTS queries and KNN and ships the newer SQLite.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw

from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.index.database import INDEX_ADVICE as INDEX_ADVICE
from vaultctx.index.database import POSTGRES as POSTGRES
from vaultctx.index.database import WRITABLE_ADVICE as WRITABLE_ADVICE
from vaultctx.index.database import Capabilities as Capabilities
from vaultctx.index.database import IndexDatabase as IndexDatabase
from vaultctx.index.database import IndexDatabaseError as IndexDatabaseError
from vaultctx.index.database import IndexFromNewerVersionError as IndexFromNewerVersionError
from vaultctx.index.database import IndexMissingError as IndexMissingError
from vaultctx.index.database import IndexNeedsRebuildError as IndexNeedsRebuildError
from vaultctx.index.database import IndexOutdatedError as IndexOutdatedError
from vaultctx.index.database import IndexUnreachableError as IndexUnreachableError
from vaultctx.index.database import IndexUnwritableError as IndexUnwritableError
from vaultctx.index.database import NotAnIndexError as NotAnIndexError
from vaultctx.index.migrations import MIGRATIONS
from vaultctx.index.ownership import (
    APPLICATION_ID,
    ForeignFileError,
    IndexFileKind,
    classify_index_file,
    create_private_file,
    restrict_to_owner,
)

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
# Recorded in ``PRAGMA user_version``: a newer vaultctx's index is refused, never rebuilt.
SCHEMA_VERSION = len(MIGRATIONS)
MMAP_BYTES = 256 * 1024 * 1024


# SQLite's verdicts on a damaged file: a page that fails its checks (CORRUPT), or a header that
# no longer reads as a database (NOTADB). They can surface at any read, long after the open.
DAMAGE_ERRORS: tuple[type[apsw.Error], ...] = (apsw.CorruptError, apsw.NotADBError)
REBUILD_ADVICE = (
    "rebuild it with `vaultctx index --full --vault <your vault>` (the vault is the source of "
    "truth; the damaged file is kept aside, not deleted)"
)


def damaged_index_error(path: IndexLocation, exc: BaseException) -> IndexNeedsRebuildError:
    return IndexNeedsRebuildError(f"the index {path} is damaged ({exc})", REBUILD_ADVICE)


@contextlib.contextmanager
def reporting_damage(path: IndexLocation) -> Iterator[None]:
    """SQLite's corruption errors inside the block become ``IndexNeedsRebuildError``: a damaged
    file is a state the user can fix, not a bug to report."""
    try:
        yield
    except DAMAGE_ERRORS as exc:
        raise damaged_index_error(path, exc) from exc


@contextlib.contextmanager
def reporting_vector_damage(db: IndexDatabase) -> Iterator[None]:
    """sqlite-vec reports a damaged page it meets as an error of its own ("vectors blob read
    error for 1", an ``SQLError``): when SQLite's quick_check then finds the file damaged, that
    error is the damage. The check reads the whole file, but only on this error path."""
    try:
        yield
    except apsw.SQLError as exc:
        if db.integrity_problems(quick=True):
            raise damaged_index_error(db.path, exc) from exc
        raise


class SqliteIndex(IndexDatabase):
    """The index in one SQLite file (the default store), with its capabilities probed once."""

    path: Path

    def __init__(self, conn: apsw.Connection, path: Path, readonly: bool) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.capabilities = _probe(conn)

    def execute(self, sql: str, params: Any = None) -> apsw.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> apsw.Cursor:
        return self.conn.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE so a writer waits for the lock up front rather than failing mid-batch."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            # SQLite may have rolled back already (a corrupt page aborts the statement and the
            # transaction): a second ROLLBACK would hide the real error behind "no transaction".
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def has_table(self, name: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')", (name,)
        ).fetchone()
        return row is not None

    def data_version(self) -> int:
        """Changes exactly when another connection has committed: caches of the index compare it
        (microseconds) to know they are stale."""
        return int(self.scalar("PRAGMA data_version"))

    def integrity_problems(self, *, quick: bool = False) -> list[str]:
        """Empty when SQLite's own check passes; a check that cannot even read the file (a
        corrupt ``sqlite_master`` page) is a problem too, not an exception."""
        pragma = "quick_check" if quick else "integrity_check"
        try:
            rows = [str(r[0]) for r in self.conn.execute(f"PRAGMA {pragma}")]
        except DAMAGE_ERRORS as exc:
            return [str(exc)]
        # One row may hold many problems, a line each ("Page 55: never used" ×100).
        lines = [line for row in rows for line in row.splitlines() if line.strip()]
        return [] if lines == ["ok"] else [line for line in lines if not line.startswith("***")]

    def close(self) -> None:
        self.conn.close()


def _vec_extension_path() -> str:
    """Where sqlite_vec.loadable_path() points, found without importing the package: its
    __init__ imports numpy and sqlite3 (~130 ms), which a keyword-only search never needs."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the sqlite-vec package is not installed: pip install sqlite-vec")
    return os.path.normpath(os.path.join(spec.submodule_search_locations[0], "vec0"))


def _load_vec(conn: apsw.Connection) -> None:
    try:
        conn.enable_load_extension(True)
        conn.load_extension(_vec_extension_path())
        conn.enable_load_extension(False)
    except Exception as exc:  # missing wheel for this platform, blocked extension loading, …
        log.warning("sqlite-vec unavailable (%s): vector search disabled, BM25 only", exc)


def _first(conn: apsw.Connection, sql: str) -> Any:
    row = conn.execute(sql).fetchone()
    return None if row is None else row[0]


def _probe(conn: apsw.Connection) -> Capabilities:
    vec_version: str | None
    try:
        vec_version = str(_first(conn, "SELECT vec_version()"))
    except apsw.SQLError:
        vec_version = None
    fts5 = bool(_first(conn, "SELECT sqlite_compileoption_used('ENABLE_FTS5')"))
    return Capabilities(apsw.sqlite_lib_version(), vec_version, fts5)


def _apply_pragmas(conn: apsw.Connection, readonly: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
    if not readonly:
        _stamp(conn)
        conn.execute("PRAGMA journal_mode = WAL")
        # Deleted rows (a note's old text, a secret the scrubber now catches) are zeroed where
        # that costs no extra I/O, so they do not linger in free pages.
        conn.execute("PRAGMA secure_delete = FAST")
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")


def _stamp(conn: apsw.Connection) -> None:
    """Mark the file as ours before anything else is written to it (in rollback-journal mode for a
    new file, so the mark is in the main file's header at once, not only in the WAL)."""
    if int(_first(conn, "PRAGMA application_id") or 0) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _check_not_newer(conn: apsw.Connection, path: Path) -> None:
    version = int(_first(conn, "PRAGMA user_version") or 0)
    applied: set[str] = set()
    if _first(conn, "SELECT 1 FROM sqlite_master WHERE name = '_migrations'"):
        applied = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
    unknown = applied - {m.__name__ for m in MIGRATIONS}
    if version > SCHEMA_VERSION or unknown:
        schema = sorted(unknown)[-1] if unknown else f"version {version}"
        raise IndexFromNewerVersionError(
            f"the index at {path} was written by a newer vaultctx (schema {schema})",
            "upgrade vaultctx (pip install -U vaultctx), or index into another file with --db",
        )


def _migrate(conn: apsw.Connection, path: Path) -> None:
    _check_not_newer(conn, path)
    conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    applied = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
    for migration in MIGRATIONS:
        if migration.__name__ in applied:
            continue
        with conn:
            migration(conn)
            conn.execute(
                "INSERT INTO _migrations(name, applied_at) VALUES (?, julianday('now'))",
                (migration.__name__,),
            )
            # A migration may rewrite the files table behind the indexer's back.
            conn.execute("DELETE FROM model_meta WHERE key = ?", (STAT_DIGEST_META,))
    if int(_first(conn, "PRAGMA user_version") or 0) != SCHEMA_VERSION:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def ensure_index_folder(path: Path) -> None:
    """Create the database's folder, or say plainly why it cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IndexUnwritableError(
            f"cannot create the folder for the index {path.parent} ({exc.strerror})",
            WRITABLE_ADVICE,
        ) from exc


def index_exists(location: IndexLocation) -> bool:
    """Whether there is an index at ``location`` yet (for PostgreSQL: the vault's schema)."""
    if isinstance(location, PostgresLocation):
        try:
            open_index(location, readonly=True).close()
        except IndexMissingError:
            return False
        return True
    return location.exists()


def check_index_file(path: Path) -> IndexFileKind:
    """What is at ``path``; ``NotAnIndexError`` unless it is absent, empty or our index."""
    try:
        return classify_index_file(path)
    except ForeignFileError as exc:
        raise NotAnIndexError(exc.message, exc.suggestion) from exc


def open_index(
    location: IndexLocation, *, readonly: bool = False, memory_map: bool = True
) -> IndexDatabase:
    """Open (and for writers create and migrate) the index at ``location``: a SQLite file, or a
    vault's schema in PostgreSQL (``postgres/store.py``)."""
    if isinstance(location, PostgresLocation):
        from vaultctx.index.postgres.store import open_postgres

        return open_postgres(location, readonly=readonly)
    return _open_sqlite(location, readonly=readonly, memory_map=memory_map)


def _open_sqlite(path: Path, *, readonly: bool, memory_map: bool) -> IndexDatabase:
    """The SQLite file at ``path``; a file that is not provably a vaultctx index raises
    ``NotAnIndexError`` before SQLite touches it.

    ``memory_map`` False reads through SQLite's small page cache instead of ``MMAP_BYTES`` of
    memory map, for a one-off scan of whole tables: every mapped page it touches counts in the
    process's resident memory while the connection is open.
    """
    kind = check_index_file(path)
    if readonly:
        if kind is not IndexFileKind.OURS:
            raise IndexMissingError(f"no index at {path}", f"{INDEX_ADVICE} first")
    else:
        ensure_index_folder(path)
        if kind is IndexFileKind.ABSENT:
            _create_private(path)
        else:
            restrict_to_owner(path)
    try:
        if readonly:
            conn = _connect_readonly(path)
        else:
            flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
            conn = apsw.Connection(str(path), flags=flags)
        _load_vec(conn)
        _apply_pragmas(conn, readonly)
        if not memory_map:
            conn.execute("PRAGMA mmap_size = 0")
        if not readonly:
            _migrate(conn, path)
        elif not _has_schema(conn):
            conn.close()
            raise IndexMissingError(f"{path} holds no vaultctx index", INDEX_ADVICE)
        else:
            _check_not_newer_or_close(conn, path)
        if readonly and _pending_migrations(conn):
            conn.close()
            raise IndexOutdatedError(
                f"the index at {path} was built by an older vaultctx",
                f"{INDEX_ADVICE} to upgrade it",
            )
    except DAMAGE_ERRORS as exc:
        raise damaged_index_error(path, exc) from exc
    except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.IOError) as exc:
        if readonly:
            raise IndexMissingError(
                f"cannot open the index at {path} ({exc})",
                f"check that the file is readable, or {INDEX_ADVICE}",
            ) from exc
        raise IndexUnwritableError(
            f"cannot write the index at {path} ({exc})", WRITABLE_ADVICE
        ) from exc
    return SqliteIndex(conn, path, readonly)


def _connect_readonly(path: Path) -> apsw.Connection:
    """A read-only connection, also to an index in a folder that cannot be written.

    Reading an index in WAL mode takes its ``-shm`` file, which SQLite creates when the last
    writer has removed it; on a read-only mount (or in a folder of someone else's) it cannot, and
    the first read fails with CANTOPEN. The index is then opened ``immutable``: SQLite reads the
    main file without locks or the ``-shm`` file, right for a file nobody can write there.
    """
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    conn = apsw.Connection(str(path), flags=flags)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except apsw.CantOpenError:
        conn.close()
    return apsw.Connection(f"{path.absolute().as_uri()}?immutable=1", flags=flags)


def index_is_writable(path: IndexLocation) -> bool:
    """Whether an indexer could update the index at ``path``: SQLite writes the file and creates
    its -wal, -shm and lock files beside it. (access(2) also says no on a read-only mount.) The
    PostgreSQL server decides per statement; a refusal there is reported when it comes."""
    if isinstance(path, PostgresLocation):
        return True
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _create_private(path: Path) -> None:
    try:
        create_private_file(path)
    except OSError as exc:
        raise IndexUnwritableError(
            f"cannot create the index {path} ({exc.strerror})", WRITABLE_ADVICE
        ) from exc


def _check_not_newer_or_close(conn: apsw.Connection, path: Path) -> None:
    try:
        _check_not_newer(conn, path)
    except IndexFromNewerVersionError:
        conn.close()
        raise


def _pending_migrations(conn: apsw.Connection) -> bool:
    applied = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
    return any(m.__name__ not in applied for m in MIGRATIONS)


def _has_schema(conn: apsw.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chunks'"
    ).fetchone()
    return row is not None


# Model meta key: digest of the files table's (path, mtime, size) rows; the indexer's no-op test.
STAT_DIGEST_META = "files_stat_digest"
# The files a complete run left out on purpose, valid with one table digest (indexer.py).
SETTLED_SKIPS_META = "settled_skips"

VECTOR_STORAGE = "int8"  # see embed.base.quantize_int8; 4x smaller than float32


def vector_storage(db: IndexDatabase) -> str:
    """The element type a vector table's layout names (``<type>[<dimension>]``): int8 in
    sqlite-vec, pgvector's ``halfvec`` on PostgreSQL (postgres/vectors.py), which holds the same
    int8 values exactly."""
    return "halfvec" if db.dialect == POSTGRES else VECTOR_STORAGE


def ensure_vector_table(db: IndexDatabase, table: str, dimension: int) -> bool:
    """Create the vector table for an engine's dimension; False when the store has no vectors
    (sqlite-vec unavailable)."""
    if not db.capabilities.vectors:
        return False
    if db.dialect == POSTGRES:
        from vaultctx.index.postgres.vectors import ensure_halfvec_table

        return ensure_halfvec_table(db, table, dimension)
    layout = f"{VECTOR_STORAGE}[{dimension}]"
    if db.meta(f"{table}.layout") != layout and db.has_table(table):
        db.execute(f"DROP TABLE {table}")
    if not db.has_table(table):
        db.execute(
            f"CREATE VIRTUAL TABLE {table} USING vec0(embedding {layout} distance_metric=cosine)"
        )
    db.set_meta(f"{table}.layout", layout)
    return True
