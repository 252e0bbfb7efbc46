"""The index builds that follow a bulk load, two at a time.

A first index loads the keyword table bare and fills new vector tables without their HNSW
graphs; both are built once at the end of the pass (``fts.build_term_indexes``,
``vectors.ensure_hnsw_indexes``). Each build is parallel inside the server, but each ends in a
part only its leader process runs (merging the sorted runs and writing the b-tree, writing the
graph's pages and their log), so built one after the other they leave a core of a two-core
machine idle for a good part of the time. Here the graphs are built on a second session while
this one builds the keyword indexes. They touch different tables, so neither waits for the
other's locks, and each build stays its own transaction as before: a killed indexer leaves each
index built or absent, and the next run builds what is missing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from typing import Any

from vaultctx.index.database import IndexDatabase
from vaultctx.index.postgres.store import PostgresIndex, open_postgres


def build_after_load(db: IndexDatabase, vector_tables: Sequence[str]) -> None:
    """Build the keyword table's missing indexes and the vector tables' missing graphs, at the
    same time when there are both."""
    assert isinstance(db, PostgresIndex)
    from vaultctx.index.postgres.fts import build_term_indexes, missing_term_indexes
    from vaultctx.index.postgres.vectors import ensure_hnsw_indexes, missing_hnsw_indexes

    if not missing_hnsw_indexes(db, vector_tables) or not missing_term_indexes(db):
        build_term_indexes(db)
        ensure_hnsw_indexes(db, vector_tables)
        return
    other = open_postgres(db.path)
    failed: list[BaseException] = []

    def graphs() -> None:
        try:
            ensure_hnsw_indexes(other, vector_tables)
        except BaseException as exc:  # re-raised below, in the indexer's own thread
            failed.append(exc)

    thread = threading.Thread(target=graphs, name="vaultctx-hnsw-build", daemon=True)
    thread.start()
    try:
        build_term_indexes(db)
    except BaseException:
        _cancel(other.conn)  # Ctrl-C or an error here: the graph is not waited for
        raise
    finally:
        thread.join()
        other.close()
    if failed:
        raise failed[0]


def _cancel(conn: Any) -> None:
    with contextlib.suppress(Exception):  # already finished or gone: nothing left to stop
        conn.cancel_safe()
