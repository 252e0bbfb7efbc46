"""One vector per note, and similarities between notes, for the reports that compare notes
(link suggestions, duplicate candidates).

A note's vector is the stored static vector of its first chunk with one (a chunk of only unknown
tokens embeds to zero and is passed over): the opening of a note says what it is about, and the
index already holds it, so no model is loaded. Similarity is (cosine + 1) / 2, on 0–1, the scale
the thresholds in docs/benchmarks.md, "Second Brain thresholds" were measured on. Comparisons run
in blocks of rows, so a 14k-note vault never needs its whole 14k × 14k matrix (784 MB) at once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vaultctx.db_location import IndexLocation
from vaultctx.index.brain_queries import ordered_chunk_vectors
from vaultctx.index.db import open_index
from vaultctx.index.schema import VECTOR_TABLE

BLOCK_ROWS = 512  # 512 × 14k float32 similarities = 29 MB per block


@dataclass(frozen=True)
class NoteVectors:
    ids: list[int]  # note ids, one per row
    unit: npt.NDArray[np.float32]  # L2-normalised rows: a dot product is the cosine

    def rows(self) -> dict[int, int]:
        return {note_id: row for row, note_id in enumerate(self.ids)}

    def similarity(self, a: int, b: int) -> float:
        """Similarity of rows ``a`` and ``b``."""
        return to_similarity(float(self.unit[a] @ self.unit[b]))

    def similarity_blocks(
        self, rows: list[int]
    ) -> Iterator[tuple[list[int], npt.NDArray[np.float32]]]:
        """(block of ``rows``, their similarities to every row), ``BLOCK_ROWS`` at a time."""
        for start in range(0, len(rows), BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            cosines = self.unit[block] @ self.unit.T
            cosines += 1.0
            cosines *= 0.5
            yield block, cosines


def to_similarity(cosine: float) -> float:
    return (cosine + 1.0) / 2.0


def load_note_vectors(db_path: IndexLocation, note_ids: Collection[int]) -> NoteVectors:
    """The vectors of those of ``note_ids`` that have one, in the order the index returns."""
    wanted = set(note_ids)
    ids: list[int] = []
    blobs: list[bytes] = []
    db = open_index(db_path, readonly=True)
    try:
        if db.has_table(VECTOR_TABLE):
            for note_id, blob in ordered_chunk_vectors(db, VECTOR_TABLE):
                if note_id in wanted and (not ids or ids[-1] != note_id) and any(blob):
                    ids.append(note_id)
                    blobs.append(blob)
    finally:
        db.close()
    if not ids:
        return NoteVectors([], np.zeros((0, 0), dtype=np.float32))
    matrix = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(ids), -1)
    unit = matrix.astype(np.float32)
    norms = np.linalg.norm(unit, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit /= norms
    return NoteVectors(ids, unit)
