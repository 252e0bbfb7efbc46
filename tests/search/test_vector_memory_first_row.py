"""The in-memory ranker's matrix starts at its first slot (search/vector_memory.py): every slot
holds a vector read from the index, none holds what the memory held before. numpy hands a small
freed buffer of the same size out again, so a freed array of a real chunk id stands where the
loader's chunk ids are allocated: a slot it skipped would read as that chunk, ranked twice with a
row of leftover bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.vector_queries import stored_vectors
from vaultctx.search import vector_memory


def test_every_slot_holds_a_vector_of_the_index(tmp_path: Path) -> None:
    notes = {f"n{i}.md": f"# Note {i}\n\nword{i} and more words\n" for i in range(5)}
    Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "i.db").index(fast=True)
    db = open_index(tmp_path / "i.db", readonly=True)
    try:
        stored = dict(stored_vectors(db, VECTOR_TABLE))
        leftover = np.full(len(stored), max(stored), dtype=np.int64)
        del leftover  # the loader's chunk ids will most likely take its place
        matrix = vector_memory._load_matrix(db, VECTOR_TABLE, 1)
    finally:
        db.close()
    assert matrix is not None
    assert matrix.chunk_ids.tolist() == list(stored)
    assert [row.tobytes() for row in matrix.rows] == list(stored.values())
