"""Which file the indexer may create, migrate or rebuild: only one that is provably its own.

``--db`` and ``DB_PATH`` can name any path, and the index is derived data the indexer freely
deletes and rebuilds. Pointed at ``thesis.txt`` or another application's SQLite database, the
old indexer called the file "damaged", deleted it and wrote an index in its place. So every
index carries SQLite's ``application_id`` (a header field meant exactly for this) and records its
schema in ``user_version``; a file is ours when its header says so, when it is empty (nothing to
lose), or when it is an index written before the stamp existed (our ``_migrations`` table).
Anything else is refused, never touched.

The header is read with plain file I/O first (100 bytes, microseconds), so the check costs a
no-op index run nothing measurable and still works on a file too damaged for SQLite to open.
"""

from __future__ import annotations

import contextlib
import os
import stat
from enum import Enum
from pathlib import Path

import apsw

from vaultctx.errors import VaultctxError

# "vctx" in ASCII; SQLite stores it big-endian at offset 68 of the file header.
APPLICATION_ID = 0x76637478
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100
_APPLICATION_ID_OFFSET = 68
# The first migration of every vaultctx index, recorded before the stamp existed.
_LEGACY_MARKER = "m001_create_tables"


class IndexFileKind(Enum):
    ABSENT = "absent"  # nothing at the path: the indexer creates the file
    EMPTY = "empty"  # zero bytes (a crash before the first write): nothing to lose
    OURS = "ours"  # stamped, or a legacy vaultctx index the indexer will stamp


class ForeignFileError(VaultctxError):
    """The path holds a file that is not a vaultctx index; the suggestion names the fix.

    ``what`` continues a sentence whose subject is the path: "is not a regular file"."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(
            f"{path} {what}, so it is not a vaultctx index; vaultctx never overwrites or deletes "
            "a file it did not create",
            "choose another path with --db or DB_PATH (or move the file away if it really is an "
            "old index)",
        )


def classify_index_file(path: Path) -> IndexFileKind:
    """What is at ``path``, or ``ForeignFileError`` when it is anything but our index."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return IndexFileKind.ABSENT
    except OSError as exc:
        raise ForeignFileError(path, f"cannot be examined ({exc.strerror})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise ForeignFileError(path, "is not a regular file")
    if info.st_size == 0:
        return IndexFileKind.EMPTY
    header = _read_header(path)
    if not header.startswith(_SQLITE_MAGIC) or len(header) < _HEADER_BYTES:
        raise ForeignFileError(path, "is not a SQLite database")
    raw_id = int.from_bytes(header[_APPLICATION_ID_OFFSET : _APPLICATION_ID_OFFSET + 4], "big")
    if raw_id == APPLICATION_ID:
        return IndexFileKind.OURS
    if raw_id != 0:
        raise ForeignFileError(
            path, f"is another application's database (application_id {raw_id:#x})"
        )
    return _classify_unstamped(path)


def _read_header(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(_HEADER_BYTES)
    except OSError as exc:
        raise ForeignFileError(path, f"cannot be read ({exc.strerror})") from exc


def _classify_unstamped(path: Path) -> IndexFileKind:
    """A SQLite file without our stamp in its main file: stamped in its WAL (not checkpointed
    yet), a legacy vaultctx index, an empty database, or someone else's."""
    try:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    except apsw.Error as exc:
        raise ForeignFileError(path, f"cannot be opened ({exc})") from exc
    try:
        row = conn.execute("PRAGMA application_id").fetchone()
        application_id = int(row[0]) if row else 0
        if application_id == APPLICATION_ID:
            return IndexFileKind.OURS
        names = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master")}
        if application_id == 0 and not names:
            return IndexFileKind.EMPTY
        if application_id == 0 and "_migrations" in names and _has_legacy_marker(conn):
            return IndexFileKind.OURS
    except apsw.Error as exc:
        raise ForeignFileError(path, f"cannot be read as a database ({exc})") from exc
    finally:
        conn.close()
    raise ForeignFileError(path, "is a SQLite database that vaultctx did not create")


def _has_legacy_marker(conn: apsw.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (_LEGACY_MARKER,)).fetchone()
    return row is not None


def create_private_file(path: Path) -> None:
    """Create the empty database file readable by the user only (the index holds note text);
    SQLite gives its -wal and -shm files the same mode."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, flags, 0o600))


def restrict_to_owner(path: Path) -> None:
    """Tighten an existing index (made before indexes were private) to 0600."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
