"""Vector search from memory for long-lived processes (MCP server, hook server, batch search).

sqlite-vec scans its int8 table for every query: ~96 ms at 130k chunks on the 2-core bench
machine, most of a hybrid query's time. A process that answers many queries can instead hold each
vector table in RAM and rank with matrix-vector products. The matrix keeps the stored int8 values
(1 byte per dimension: 33 MB for 130k chunks at 256 dimensions, where float32 took 133 MB and
loading it peaked near 480 MB) and is multiplied in small float32 blocks (``BLOCK_VALUES``): the
products of int8 values are whole numbers far below 2**24, so each dot product is exact and the
cosine is that product over the two norms. Small blocks are also faster than one float32 product
over the whole matrix (28 vs 54 ms at 130k x 256 on the loaded bench machine): a block stays in
the CPU cache, and BLAS does not start threads for it, which on a busy machine cost 10-20x.

The matrix must never serve a stale index: every query compares SQLite's data version
(``IndexDatabase.data_version``), which changes whenever another connection (the indexer, the
watcher) commits; a stale or still-loading matrix makes ``search`` return None and the caller
asks sqlite-vec, while a background thread reloads. Results therefore always match the database.
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
from vaultctx.index.vector_queries import (
    every_chunk_note,
    stored_vectors,
    vector_count,
    vector_dimension,
)

log = logging.getLogger(__name__)

# Beyond this a table stays on disk: a 50k-note vault must not cost gigabytes of RAM.
MAX_MATRIX_BYTES = 512 * 1024 * 1024
# Values converted to float32 at a time when scoring (1 MB of scratch): 1,024 rows at 256
# dimensions. Blocks of 2,048 such rows measured 20-40x slower (BLAS threads, a busy machine).
BLOCK_VALUES = 256 * 1024


@dataclass(frozen=True)
class _Matrix:
    chunk_ids: npt.NDArray[np.int64]
    file_ids: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int8]  # as stored by sqlite-vec
    inverse_norms: npt.NDArray[np.float32]  # 1 / |row|, 0 for an all-zero row
    data_version: int

    def cosines(self, vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The cosine of every row with ``vector`` (whole numbers, as quantised), block by block
        so the float32 copy of the matrix never exists whole."""
        count, dimension = self.rows.shape
        step = max(1, BLOCK_VALUES // dimension)
        scores = np.empty(count, dtype=np.float32)
        scratch = np.empty((min(step, count), dimension), dtype=np.float32)
        for start in range(0, count, step):
            stored = self.rows[start : start + step]
            block = scratch[: len(stored)]
            np.copyto(block, stored, casting="unsafe")
            np.dot(block, vector, out=scores[start : start + len(stored)])
        scores *= self.inverse_norms
        return scores


def _load_matrix(db: IndexDatabase, table: str, data_version: int) -> _Matrix | None:
    dimension = vector_dimension(db, table)
    count = vector_count(db, table)
    if dimension is None or count == 0:
        return None
    if count * dimension > MAX_MATRIX_BYTES:
        log.info("%s: %d vectors exceed the in-memory limit; searching on disk", table, count)
        return None
    # Filled row by row: a commit between the count and the scan may add or remove a few rows.
    chunk_ids = np.empty(count, dtype=np.int64)
    rows = np.empty((count, dimension), dtype=np.int8)
    filled = 0
    for chunk_id, blob in stored_vectors(db, table):
        if filled == len(rows):
            grown = len(rows) + max(1024, len(rows) // 8)
            chunk_ids = np.resize(chunk_ids, grown)
            rows = np.resize(rows, (grown, dimension))
        chunk_ids[filled] = chunk_id
        rows[filled] = np.frombuffer(blob, dtype=np.int8)
        filled += 1
    chunk_ids, rows = chunk_ids[:filled], rows[:filled]
    file_ids = _note_ids(db, chunk_ids)
    known = file_ids >= 0  # a vector whose chunk is gone is never a result
    if not known.all():
        chunk_ids, rows, file_ids = chunk_ids[known], rows[known], file_ids[known]
    filled = len(rows)
    if filled == 0:
        return None
    norms = np.empty(filled, dtype=np.float32)
    step = max(1, BLOCK_VALUES // dimension)
    for start in range(0, filled, step):
        block = rows[start : start + step].astype(np.float32)
        norms[start : start + len(block)] = np.sqrt(np.einsum("ij,ij->i", block, block))
    inverse = np.zeros(filled, dtype=np.float32)
    np.divide(1.0, norms, out=inverse, where=norms > 0)
    return _Matrix(chunk_ids, file_ids, rows, inverse, data_version)


def _note_ids(db: IndexDatabase, chunk_ids: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The note of each chunk id, -1 for a chunk that is not (or no longer) in ``chunks``."""
    pairs = np.fromiter(
        (value for pair in every_chunk_note(db) for value in pair), dtype=np.int64
    ).reshape(-1, 2)
    if len(pairs) == 0:
        return np.full(len(chunk_ids), -1, dtype=np.int64)
    pairs = pairs[np.argsort(pairs[:, 0], kind="stable")]
    at = np.searchsorted(pairs[:, 0], chunk_ids)
    inside = at < len(pairs)
    found = np.zeros(len(chunk_ids), dtype=bool)
    found[inside] = pairs[at[inside], 0] == chunk_ids[inside]
    return np.where(found, pairs[np.minimum(at, len(pairs) - 1), 1], -1)


class InMemoryVectors:
    """Per-table int8 matrices of one index, reloaded in the background after commits."""

    def __init__(self, db: IndexDatabase, opener: Callable[[], IndexDatabase] | None = None):
        self._db = db
        # Without the memory map: the scan would make most of the index file resident (a load
        # at 130k chunks peaked 134 MB above its result; 42 MB without).
        self._open = opener or (lambda: open_index(db.path, readonly=True, memory_map=False))
        self._matrices: dict[str, _Matrix] = {}
        self._loading: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    def sharing(self, db: IndexDatabase) -> InMemoryVectors:
        """The same matrices, checked against ``db``'s data version: for another connection to
        this index used by another thread (a server's parallel readers), so each reader ranks
        from RAM without a copy of its own. A reload started by either is seen by both."""
        view = InMemoryVectors(db, self._open)
        view._matrices, view._loading, view._lock = self._matrices, self._loading, self._lock
        return view

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
        scores = matrix.cosines(vector)
        scores /= norm
        candidates: npt.NDArray[np.intp] | None = None
        if file_ids is not None:
            candidates = np.flatnonzero(np.isin(matrix.file_ids, np.asarray(file_ids)))
            scores = scores[candidates]
        top = min(k, len(scores))
        if top == 0:
            return []
        best = np.argpartition(-scores, top - 1)[:top]
        rows = best if candidates is None else candidates[best]
        # Exact scores tie for duplicated passages: the lower chunk id first, run after run.
        order = np.lexsort((matrix.chunk_ids[rows], -scores[best]))
        best, rows = best[order], rows[order]
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
