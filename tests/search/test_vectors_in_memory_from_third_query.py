"""A retriever starts ranking vectors from RAM at its third vector query (a long-lived process),
never before (a one-shot process must not pay for the matrix), and never when told not to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import VECTORS_IN_MEMORY_AFTER

NOTES = {
    "wal.md": "# WAL\n\nThe write-ahead log lets readers and one writer work at once.\n",
    "compost.md": "# Compost\n\nTurn the heap every week so it stays warm and smells of earth.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("memory-after")
    handle = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    handle.index(fast=True)
    return handle


def test_the_third_vector_query_loads_the_matrix(vault: Vault, tmp_path: Path) -> None:
    retriever = Vault(vault.path, db=vault.db_path).retriever()
    assert VECTORS_IN_MEMORY_AFTER == 3 and retriever.memory is None
    for _ in range(5):  # keyword searches ask no vector model: they do not count
        retriever.search(SearchRequest("write-ahead log", mode="bm25"))
    for _ in range(VECTORS_IN_MEMORY_AFTER - 1):
        retriever.search(SearchRequest("write-ahead log"))
        assert retriever.memory is None, "one-shot processes never load the matrix"
    retriever.search(SearchRequest("write-ahead log", mode="vector"))
    memory = retriever.memory
    assert memory is not None
    retriever.search(SearchRequest("compost heap"))
    assert retriever.memory is memory, "loaded once, then kept"


def test_without_a_threshold_every_query_stays_on_disk(vault: Vault) -> None:
    retriever = Vault(vault.path, db=vault.db_path).retriever()
    retriever.memory_after = None
    for _ in range(VECTORS_IN_MEMORY_AFTER + 1):
        assert retriever.search(SearchRequest("compost heap")).results
    assert retriever.memory is None
