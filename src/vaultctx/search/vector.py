"""Nearest chunks by cosine distance with sqlite-vec (SPEC §6)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vaultctx.embed.base import quantize_int8
from vaultctx.index.db import IndexDatabase

VECTOR_TOP_K = 30


def vector_search(
    db: IndexDatabase, table: str, query_vector: npt.NDArray[np.float32], k: int = VECTOR_TOP_K
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first; nothing for a query the model cannot place.

    An engine embeds text with no known token (emoji, an unknown script) to the zero vector,
    whose cosine distance is undefined: such a query has no vector neighbours.
    """
    vector = np.asarray(query_vector, dtype=np.float32)
    if not np.any(vector):
        return []
    rows = db.execute(
        f"SELECT rowid, distance FROM {table} WHERE embedding MATCH vec_int8(?) AND k = ? "
        "ORDER BY distance",
        (quantize_int8(vector), k),
    )
    return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]
