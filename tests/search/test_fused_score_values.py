"""The fused scores themselves: a note named by the query outweighs every other list together
(1 + their weights), a list of weight 0 lets no chunk in on its own, and a graph search fuses
by ranks (RRF) unless the request names a fusion. Real index, real sqlite-vec."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.ranking_constants import BM25_WEIGHT, GRAPH_WEIGHT, KEYWORD_WEIGHT, RRF_K
from vaultctx.search.request import SearchRequest, Weights

NOTES = {
    # "compost" is in one note only, and that note's title: its BM25 list has one hit.
    "Compost.md": "# Compost\n\nTurn the compost heap every week.\n\nSee [[Garden]].\n",
    "Garden.md": "# Garden\n\nBeds, paths and a greenhouse. Links to [[Soil]].\n",
    "Soil.md": "# Soil\n\nLeaf mould feeds the soil; mulch keeps it damp.\n",
    "Bread.md": "# Bread\n\nFeed the sourdough starter the night before baking.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("fused")
    handle = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    handle.index(fast=True)
    return handle


@pytest.mark.parametrize("bm25", [None, 0.25])
def test_a_titled_note_scores_one_more_than_every_list_together(
    vault: Vault, bm25: float | None
) -> None:
    response = vault.search(SearchRequest("compost", mode="bm25", weights=Weights(bm25=bm25)))
    [result] = response.results
    keyword = BM25_WEIGHT if bm25 is None else bm25
    # its keyword score (the list's only hit: 1.0 × weight) plus the title list's 1 + weight
    assert result.file_path == "Compost.md" and result.score == pytest.approx(1 + 2 * keyword)


def test_a_list_of_weight_zero_adds_no_chunk_of_its_own(vault: Vault) -> None:
    request = SearchRequest("compost", mode="bm25", weights=Weights(bm25=0.0))
    [titled] = vault.search(request).results  # only the title list has weight
    assert titled.file_path == "Compost.md" and titled.bm25_rank == 1 and titled.score == 1.0
    assert (
        vault.search(SearchRequest("soil garden", mode="bm25", weights=Weights(bm25=0.0))).results
        == []
    )


def test_a_graph_search_fuses_ranks_unless_told_otherwise(vault: Vault) -> None:
    request = SearchRequest("mulch for the beds", graph=True)
    # RRF: each list adds weight / (k + rank); no title here, so the ceiling is both lists at 1.
    ceiling = (KEYWORD_WEIGHT + GRAPH_WEIGHT) / (RRF_K + 1)
    ranked = vault.search(request).results
    assert ranked and all(0 < r.score <= ceiling + 1e-9 for r in ranked)
    scored = vault.search(SearchRequest("mulch for the beds", graph=True, fusion="score")).results
    assert max(r.score for r in scored) > ceiling


def test_a_graph_search_still_puts_the_note_named_by_the_query_first(vault: Vault) -> None:
    results = vault.search(SearchRequest("compost", graph=True)).results
    ceiling = (KEYWORD_WEIGHT + GRAPH_WEIGHT) / (RRF_K + 1)  # what the other lists can give
    assert results[0].file_path == "Compost.md" and results[0].score > ceiling
