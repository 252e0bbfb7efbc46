"""Several searches of one vault at once: a small pool of reader handles for a server.

A server's clients used to queue behind one lock per vault (its one connection), so with 20
clients in flight each search waited for ~19 others (docs/benchmarks.md). Readers do not need
that: SQLite in WAL mode lets readers run beside each other and beside a writer, PostgreSQL
gives each connection its own snapshot. So each concurrent read-only call gets a ``Vault.reader``
of its own: its own connection, the vault's models (loaded once by the warm-up; ONNX sessions,
tokenizers and the static model's table are safe to call from several threads; Kiwi has its own
lock) and, on PostgreSQL, the vault's in-memory vectors (``InMemoryVectors.sharing``: one copy
of the matrices; a SQLite reader holds its own, see ``share_vectors``).

The pool grows to ``size`` handles as calls overlap, and a call beyond that waits for one to be
free. Writes (index runs, note writes) keep the vault's own handle and lock: a reader never takes
that lock, so a long write never holds up a search.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from vaultctx.api import Vault
from vaultctx.config import usable_cores
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.index.database import POSTGRES

log = logging.getLogger(__name__)

# Handles per vault, as measured with 20 clients on 2 cores (bench/http_concurrency.py,
# docs/benchmarks.md). SQLite: four answered ~57 % more searches per second than one (sqlite3,
# numpy and the tokenizers release the interpreter lock), with a lower p95. PostgreSQL: one per
# core the process may use. Four once answered ~25 % more than one, while PostgreSQL's share of
# a search was the larger; since its plans are made once per reader, this process's
# interpreter is what a search waits for, and on 2 cores two handles cost it 0.73-0.76x the CPU
# per search of four-plus-two threads taking turns under its lock (p95 110-134 against
# 148-176 ms). A server with more cores, or a database across a network, gets more.
SQLITE_READERS = 4
MIN_POSTGRES_READERS = 2


def postgres_readers() -> int:
    """One per core this process may use, at least two."""
    return max(MIN_POSTGRES_READERS, usable_cores())


def pool_size(location: IndexLocation) -> int:
    """How many searches of an index at ``location`` run at once."""
    return postgres_readers() if isinstance(location, PostgresLocation) else SQLITE_READERS


class Readers:
    """Up to ``size`` reader handles on ``vault``, each used by one thread at a time."""

    def __init__(self, vault: Vault, vault_lock: threading.Lock, size: int | None = None) -> None:
        size = pool_size(vault.db_path) if size is None else size
        if size < 1:
            raise ValueError("a pool needs at least one reader")
        self._vault = vault
        self._vault_lock = vault_lock  # the writers' lock, only ever tried, never waited for
        self._size = size
        self._idle: list[Vault] = []
        self._made = 0
        self._changed = threading.Condition()

    @contextlib.contextmanager
    def handle(self) -> Iterator[Vault]:
        """A reader of its own for the caller's thread, back in the pool afterwards."""
        reader = self._take()
        try:
            yield reader
        finally:
            with self._changed:
                self._idle.append(reader)
                self._changed.notify()

    def share_vectors(self, reader: Vault) -> None:
        """Let ``reader`` rank vectors from the vault's matrices in memory, once they exist; run
        after each call (reading a note needs no index, so its call must not open one).

        Never loads a copy of its own (``memory_after``), and never waits for the writers'
        lock: while a write holds it, this reader asks the database and tries again next time.
        Best effort: an index that cannot be opened is reported by the calls that need it.
        """
        try:
            # Without vectors: the call that just ran added the sources it needed, and adding
            # them again costs a statement per search once pass 2 is complete (the check whether
            # the static vectors are still needed is not kept).
            mine = reader.retriever(vectors=False)
        except Exception as exc:  # missing, damaged, unreachable: the next search says so
            log.debug("reader not sharing vectors: %s", exc)
            return
        if mine.db.dialect != POSTGRES:
            # SQLite's data version is per connection: the vault's matrices, stamped with its
            # own connection's, would look stale to every reader and reload on every query.
            return  # the reader loads a copy of its own after a few vector queries
        mine.memory_after = None
        if mine.memory is not None or not self._vault_lock.acquire(blocking=False):
            return
        try:
            held = self._vault.retriever().memory
        finally:
            self._vault_lock.release()
        if held is not None:
            mine.memory = held.sharing(mine.db)

    @property
    def size(self) -> int:
        """How many reader handles there may be at once."""
        return self._size

    @property
    def opened(self) -> int:
        """How many reader handles exist (tests, status)."""
        with self._changed:
            return self._made

    def close(self) -> None:
        with self._changed:
            idle, self._idle = self._idle, []
            self._made -= len(idle)
        for reader in idle:
            reader.close()

    def _take(self) -> Vault:
        with self._changed:
            while not self._idle and self._made >= self._size:
                self._changed.wait()
            if self._idle:
                return self._idle.pop()
            self._made += 1
        try:
            return self._vault.reader()
        except BaseException:
            with self._changed:
                self._made -= 1
                self._changed.notify()
            raise
