"""The in-memory vector ranker must agree with sqlite-vec and never serve a stale index."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import VECTOR_TABLE
from vaultctx.search.vector import vector_search
from vaultctx.search.vector_memory import InMemoryVectors

QUERIES = ("why did the database lock up", "meeting notes", "kubernetes deploy rollback")


@pytest.fixture()
def vault(tmp_path: Path) -> Vault:
    vault_dir = tmp_path / "vault"
    copy_example_vault(vault_dir)
    vault = Vault(vault_dir, db=tmp_path / "index.db")
    vault.index(fast=True)
    return vault


def test_memory_ranking_matches_sqlite_vec(vault: Vault) -> None:
    embedder = StaticEmbedder()
    db = open_index(vault.db_path, readonly=True)
    memory = InMemoryVectors(db)
    memory.load([VECTOR_TABLE], wait=True)
    some_file = int(db.scalar("SELECT min(id) FROM files"))
    for query in QUERIES:
        vector = embedder.embed([query])[0]
        for file_ids in (None, [some_file]):
            on_disk = vector_search(db, VECTOR_TABLE, vector, 10, file_ids=file_ids)
            in_memory = memory.search(VECTOR_TABLE, vector, 10, file_ids=file_ids)
            assert in_memory is not None and on_disk
            assert [cid for cid, _ in in_memory] == [cid for cid, _ in on_disk]
            for (_, a), (_, b) in zip(in_memory, on_disk, strict=True):
                assert a == pytest.approx(b, abs=1e-6)
    db.close()


def test_commit_by_another_connection_makes_the_matrix_stale(vault: Vault) -> None:
    embedder = StaticEmbedder()
    db = open_index(vault.db_path, readonly=True)
    memory = InMemoryVectors(db)
    memory.load([VECTOR_TABLE], wait=True)
    vector = embedder.embed(["zebra migration patterns"])[0]
    assert memory.search(VECTOR_TABLE, vector, 5) is not None
    (vault.path / "zebras.md").write_text(
        "# Zebras\n\nZebra migration patterns across the savanna, every year.\n", encoding="utf-8"
    )
    vault.index(fast=True)
    assert memory.search(VECTOR_TABLE, vector, 5) is None, "stale matrix must not answer"
    memory.load([VECTOR_TABLE], wait=True)
    fresh = memory.search(VECTOR_TABLE, vector, 5)
    on_disk = vector_search(db, VECTOR_TABLE, vector, 5)
    assert fresh is not None and [c for c, _ in fresh] == [c for c, _ in on_disk]
    zebra_chunks = {
        int(r[0])
        for r in db.execute(
            "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = 'zebras.md'"
        )
    }
    assert fresh is not None and fresh[0][0] in zebra_chunks
    db.close()


def test_retriever_results_unchanged_by_holding_vectors(vault: Vault) -> None:
    before = [vault.search(q).as_dict()["results"] for q in QUERIES]
    vault.retriever().hold_vectors_in_memory(wait=True)
    assert vault.retriever().memory is not None
    after = [vault.search(q).as_dict()["results"] for q in QUERIES]
    for old, new in zip(before, after, strict=True):
        assert [r["chunk_id"] for r in old] == [r["chunk_id"] for r in new]


def test_a_process_that_keeps_searching_holds_vectors_in_memory(vault: Vault) -> None:
    retriever = vault.retriever()
    vault.search(QUERIES[0])
    vault.search(QUERIES[1])
    assert retriever.memory is None, "one-shot processes must not pay for loading the matrix"
    vault.search(QUERIES[2])
    assert retriever.memory is not None
    vault.search("bm25 only", mode="bm25")
    retriever.memory.load([VECTOR_TABLE], wait=True)
    assert retriever.memory.search(VECTOR_TABLE, StaticEmbedder().embed(["x"])[0], 3) is not None


def test_duplicated_passages_tie_and_rank_by_chunk_id(tmp_path: Path) -> None:
    """Scores are exact (int8 products), so copies of a passage tie; the order must not depend
    on how the matrix was partitioned."""
    vault_dir = tmp_path / "vault"
    vault_dir.mkdir()
    text = "# Backups\n\nRestore the nightly database backup before the migration.\n"
    for name in ("c.md", "a.md", "b.md"):
        (vault_dir / name).write_text(text, encoding="utf-8")
    (vault_dir / "garden.md").write_text("# Garden\n\nTomatoes need sun.\n", encoding="utf-8")
    vault = Vault(vault_dir, db=tmp_path / "index.db")
    vault.index(fast=True)
    db = open_index(vault.db_path, readonly=True)
    memory = InMemoryVectors(db)
    memory.load([VECTOR_TABLE], wait=True)
    hits = memory.search(VECTOR_TABLE, StaticEmbedder().embed(["restore backup"])[0], 4)
    db.close()
    assert hits is not None
    tied = [(cid, score) for cid, score in hits if score == hits[0][1]]
    assert len(tied) == 3
    assert [cid for cid, _ in tied] == sorted(cid for cid, _ in tied)
