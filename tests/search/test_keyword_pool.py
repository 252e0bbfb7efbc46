"""A keyword search returns as many passages as were asked for, up to its candidate pool of
30, when that many match; asking for one passage per note widens the pool to three per result."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault

MATCHING = 45


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("pool")
    notes = {
        f"light-{n:02d}.md": f"# Light {n}\n\nThe lighthouse keeper wrote entry {n} in the log.\n"
        for n in range(MATCHING)
    }
    notes["other.md"] = "# Other\n\nNothing about the sea here.\n"
    handle = Vault(make_vault(root / "vault", notes), db=root / "index.db")
    handle.index(fast=True)
    return handle


@pytest.mark.parametrize("limit", [1, 20, 25, 30])
def test_a_keyword_search_fills_its_limit(vault: Vault, limit: int) -> None:
    results = vault.search("lighthouse", mode="bm25", limit=limit).results
    assert len(results) == limit
    assert all(result.file_path.startswith("light-") for result in results)


def test_one_passage_per_note_looks_deeper_than_the_pool(vault: Vault) -> None:
    results = vault.search("lighthouse", mode="bm25", limit=40, notes=True).results
    assert len(results) == 40
    assert len({result.file_path for result in results}) == 40


def test_a_hybrid_search_keeps_every_keyword_hit_it_was_asked_for(vault: Vault) -> None:
    results = vault.search("lighthouse", limit=30).results
    assert sum(result.bm25_rank is not None for result in results) == 30
