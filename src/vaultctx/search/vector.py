"""Nearest chunks by cosine distance with sqlite-vec."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vaultctx.embed.base import quantize_int8
from vaultctx.index.db import IndexDatabase
from vaultctx.index.vector_queries import nearest_chunks
from vaultctx.search.ranking_constants import VECTOR_TOP_K


def vector_search(
    db: IndexDatabase,
    table: str,
    query_vector: npt.NDArray[np.float32],
    k: int = VECTOR_TOP_K,
    *,
    file_ids: Sequence[int] | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) best first; nothing for a query the model cannot place.

    An engine embeds text with no known token (emoji, an unknown script) to the zero vector,
    whose cosine distance is undefined: such a query has no vector neighbours.

    ``file_ids`` keeps only chunks of those notes: the result is the exact top ``k`` of the
    allowed chunks (search filters), and a selective filter makes the scan cheaper, not emptier.
    """
    vector = np.asarray(query_vector, dtype=np.float32)
    if not np.any(vector) or (file_ids is not None and not file_ids):
        return []
    return nearest_chunks(db, table, quantize_int8(vector), k, file_ids)
