"""Vector search from memory for long-lived processes (MCP server, hook server, batch search).

sqlite-vec scans its int8 table for every query: ~96 ms at 130k chunks on the 2-core bench
machine, most of a hybrid query's time. A process that answers many queries can instead hold each
vector table as a float32 matrix (1 KB per chunk per 256 dimensions) and rank with one BLAS
matrix-vector product. The matrix must never serve a stale index: every query compares SQLite's
data version (``IndexDatabase.data_version``), which changes whenever another connection (the
indexer, the watcher) commits; a stale or still-loading matrix makes ``search`` return None and
the caller asks sqlite-vec, while a background thread reloads. Results therefore always match the
database.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vaultctx.embed.base import quantize_int8
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.vector_queries import stored_vectors, vector_count, vector_dimension

log = logging.getLogger(__name__)

# Beyond this a table stays on disk: a 50k-note vault must not cost gigabytes of RAM.
MAX_MATRIX_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class _Matrix:
    chunk_ids: npt.NDArray[np.int64]
    file_ids: npt.NDArray[np.int64]
    unit_rows: npt.NDArray[np.float32]  # L2-normalised, so a dot product is the cosine
    data_version: int


def _load_matrix(db: IndexDatabase, table: str, data_version: int) -> _Matrix | None:
    dimension = vector_dimension(db, table)
    count = vector_count(db, table)
    if dimension is None or count == 0:
        return None
    if count * dimension * 4 > MAX_MATRIX_BYTES:
        log.info("%s: %d vectors exceed the in-memory limit; searching on disk", table, count)
        return None
    rows = stored_vectors(db, table)
    if not rows:
        return None
    chunk_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    file_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.int8)
    unit = matrix.reshape(len(rows), dimension).astype(np.float32)
    norms = np.linalg.norm(unit, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit /= norms
    return _Matrix(chunk_ids, file_ids, unit, data_version)


class InMemoryVectors:
    """Per-table float32 matrices of one index, reloaded in the background after commits."""

    def __init__(self, db: IndexDatabase, opener: Callable[[], IndexDatabase] | None = None):
        self._db = db
        self._open = opener or (lambda: open_index(db.path, readonly=True))
        self._matrices: dict[str, _Matrix] = {}
        self._loading: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    def load(self, tables: Sequence[str], *, wait: bool = False) -> None:
        """Start loading ``tables``; ``wait`` returns once they are current (benchmarks, tests)."""
        version = self._db.data_version()
        for table in tables:
            thread = self._start_load(table, version)
            if wait and thread is not None:
                thread.join()

    def search(
        self,
        table: str,
        query_vector: npt.NDArray[np.float32],
        k: int,
        *,
        file_ids: Sequence[int] | None = None,
    ) -> list[tuple[int, float]] | None:
        """(chunk id, cosine similarity) best first, or None when the matrix is not current."""
        version = self._db.data_version()
        matrix = self._matrices.get(table)
        if matrix is None or matrix.data_version != version:
            self._start_load(table, version)
            return None
        # Quantised as sqlite-vec receives it, so warm and cold processes rank identically.
        vector = np.frombuffer(quantize_int8(query_vector), dtype=np.int8).astype(np.float32)
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            return []
        scores = matrix.unit_rows @ (vector / norm)
        candidates: npt.NDArray[np.intp] | None = None
        if file_ids is not None:
            candidates = np.flatnonzero(np.isin(matrix.file_ids, np.asarray(file_ids)))
            scores = scores[candidates]
        top = min(k, len(scores))
        if top == 0:
            return []
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.argsort(-scores[best], kind="stable")]
        rows = best if candidates is None else candidates[best]
        return [
            (int(cid), float(score))
            for cid, score in zip(matrix.chunk_ids[rows], scores[best], strict=True)
        ]

    def _start_load(self, table: str, version: int) -> threading.Thread | None:
        """The thread bringing ``table`` to ``version`` (one per table), None if it is current."""
        with self._lock:
            matrix = self._matrices.get(table)
            if matrix is not None and matrix.data_version == version:
                return None
            running = self._loading.get(table)
            if running is not None:
                return running
            thread = threading.Thread(
                target=self._reload, args=(table, version), name=f"load-{table}", daemon=True
            )
            self._loading[table] = thread
        thread.start()
        return thread

    def _reload(self, table: str, version: int) -> None:
        """Reads with a connection of its own, so queries on the main one never wait for it."""
        try:
            db = self._open()
            try:
                # The snapshot read below is at least as new as ``version``: a commit in between
                # only makes the matrix look stale and reload once more.
                matrix = _load_matrix(db, table, version)
            finally:
                db.close()
            if matrix is not None:
                self._matrices[table] = matrix
        except Exception as exc:  # a vanished or locked index: sqlite-vec keeps answering
            log.info("could not load %s into memory (%s)", table, exc)
        finally:
            with self._lock:
                self._loading.pop(table, None)
