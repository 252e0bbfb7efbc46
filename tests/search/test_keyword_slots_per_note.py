"""A graph search one result per note keeps its keyword slots for notes, not chunks or titles: a
note found only by keywords, far outside the vector ranking, is shown even when another note of
the same title is among the vector hits. Real index (static model), real sqlite-vec."""

from __future__ import annotations

import pytest

from vaultctx.api import Vault

TOPICS = [
    "replication lag",
    "write-ahead log",
    "index rebuild",
    "connection pool",
    "vacuum",
    "query planner",
    "checkpoint",
    "deadlock",
    "backup",
    "schema migration",
]
QUERY = "zx81q database replication"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("slots")
    (root / "vault" / "db").mkdir(parents=True)
    (root / "vault" / "kitchen").mkdir()
    for i in range(50):
        (root / "vault" / "db" / f"Database {i}.md").write_text(
            f"Database notes {i}: {TOPICS[i % 10]} on the primary server, replica {i} and the "
            "connection settings.\n",
            encoding="utf-8",
        )
    (root / "vault" / "db" / "Log.md").write_text(
        "Database replication log: the replica fell behind the primary server.\n", encoding="utf-8"
    )
    (root / "vault" / "kitchen" / "Log.md").write_text(
        "Sourdough starter fed with rye flour; code zx81q on the jar.\n", encoding="utf-8"
    )
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    return vault


def test_the_premise_the_keyword_note_is_far_from_the_vector_ranking(vault: Vault) -> None:
    nearest = vault.search(QUERY, mode="vector", notes=True, limit=30).results
    paths = [result.file_path for result in nearest]
    assert "kitchen/Log.md" not in paths and "db/Log.md" in paths


def test_a_keyword_only_note_gets_a_reserved_slot(vault: Vault) -> None:
    results = vault.search(QUERY, graph=True, notes=True, limit=4).results
    shown = {result.file_path: result for result in results}
    assert len(results) == 4 and len(shown) == 4
    kitchen = shown["kitchen/Log.md"]
    assert kitchen.bm25_rank == 1 and kitchen.vec_rank is None
