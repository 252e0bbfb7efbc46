"""Which tables the in-memory ranker holds (search/vector_memory.py): a single vector is held,
and a matrix over ``MAX_MATRIX_BYTES`` (count × dimension int8 bytes) is left on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.vector_queries import vector_count, vector_dimension
from vaultctx.search import vector_memory
from vaultctx.search.vector_memory import InMemoryVectors


def indexed(root: Path, notes: dict[str, str]) -> IndexDatabase:
    vault = Vault(make_vault(root / "vault", notes), db=root / "index.db")
    vault.index(fast=True)
    return open_index(root / "index.db", readonly=True)


def held(db: IndexDatabase) -> bool:
    memory = InMemoryVectors(db)
    memory.load([VECTOR_TABLE], wait=True)
    vector = StaticEmbedder().embed(["lighthouse"])[0]
    return memory.search(VECTOR_TABLE, vector, 3) is not None


def test_a_single_vector_is_held_in_memory(tmp_path: Path) -> None:
    db = indexed(tmp_path, {"a.md": "# Lighthouse\n\nThe keeper lights the lamp at dusk.\n"})
    try:
        assert vector_count(db, VECTOR_TABLE) == 1
        assert held(db)
    finally:
        db.close()


def test_a_matrix_over_the_limit_stays_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"n{i}.md": f"# Note {i}\n\nLighthouse keeper number {i} at dusk.\n" for i in range(3)}
    db = indexed(tmp_path, notes)
    try:
        dimension = vector_dimension(db, VECTOR_TABLE)
        count = vector_count(db, VECTOR_TABLE)
        assert dimension is not None and count >= 3
        monkeypatch.setattr(vector_memory, "MAX_MATRIX_BYTES", count * dimension)
        assert held(db), "exactly the limit is held"
        monkeypatch.setattr(vector_memory, "MAX_MATRIX_BYTES", count * dimension - 1)
        assert not held(db), "one byte over stays on disk"
    finally:
        db.close()
