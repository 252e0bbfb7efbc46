"""``vector_search`` quantises a query from its float32 form, the precision every stored chunk
vector was quantised from, whatever precision the caller hands it (search/vector.py): a float64
query whose int8 form would differ ranks and scores exactly as its float32 copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.embed.base import quantize_int8
from vaultctx.index.db import open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.vector_queries import vector_dimension
from vaultctx.search.vector import vector_search


def test_a_float64_query_is_ranked_as_its_float32_copy(tmp_path: Path) -> None:
    notes = {
        "a.md": "# Compost\n\nTurn the heap weekly.\n",
        "b.md": "# Bicycle\n\nOil the chain.\n",
        "c.md": "# Bread\n\nLet the dough rise.\n",
    }
    Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "i.db").index(fast=True)
    db = open_index(tmp_path / "i.db", readonly=True)
    try:
        dimension = vector_dimension(db, VECTOR_TABLE)
        assert dimension is not None
        query = np.zeros(dimension, dtype=np.float64)
        # The premise: just under 1.5 steps of 127, 1 in double precision and 2 in float32.
        query[0], query[1] = 1.0, (1.5 - 1e-9) / 127
        as_float32 = query.astype(np.float32)
        assert quantize_int8(query) != quantize_int8(as_float32)  # type: ignore[arg-type]
        found = vector_search(db, VECTOR_TABLE, query)  # type: ignore[arg-type]
        assert found == vector_search(db, VECTOR_TABLE, as_float32)
        assert len(found) == 3
    finally:
        db.close()
