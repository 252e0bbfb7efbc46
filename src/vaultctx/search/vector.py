"""Nearest chunks by cosine distance with sqlite-vec."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vaultctx.embed.base import quantize_int8
from vaultctx.index.db import IndexDatabase

VECTOR_TOP_K = 30


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

    ``file_ids`` keeps only chunks of those notes. sqlite-vec applies a ``rowid IN (…)``
    constraint during the KNN scan, so the result is the exact top ``k`` of the allowed chunks
    (search filters), and a selective filter makes the scan cheaper, not emptier.
    """
    vector = np.asarray(query_vector, dtype=np.float32)
    if not np.any(vector) or (file_ids is not None and not file_ids):
        return []
    restrict, params = "", [quantize_int8(vector), k]
    if file_ids is not None:
        restrict = (
            " AND rowid IN (SELECT id FROM chunks "
            "WHERE file_id IN (SELECT value FROM json_each(?)))"
        )
        params.append(json.dumps(list(file_ids)))
    rows = db.execute(
        f"SELECT rowid, distance FROM {table} WHERE embedding MATCH vec_int8(?) AND k = ?"
        f"{restrict} ORDER BY distance",
        params,
    )
    return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]
