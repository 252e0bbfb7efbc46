"""A query that is a note's title finds that note first: the note itself, ahead of a passage that
only repeats the word (``search compost`` once ranked ``Garden plan#Soil`` above ``Compost``)."""

from __future__ import annotations

import pytest

import vaultctx.search.retriever as retriever_module
from vaultctx.api import Vault
from vaultctx.search.filters import Filters
from vaultctx.search.request import SearchRequest

NOTES = {
    "Compost.md": "# Compost\n\nKitchen scraps, coffee grounds and autumn leaves go in the bin "
    "by the shed. Turn it every few weeks; it is ready when it smells of earth.\n",
    "Garden plan.md": "# Garden plan\n\n## Beds\n\nFour raised beds: tomatoes, beans, lettuce "
    "and herbs. Rotate the families every year.\n\n## Soil\n\nWork two buckets of compost into "
    "each bed in spring. Compost feeds the soil life; a compost mulch keeps moisture in, and "
    "compost tea helps seedlings. More compost in the tomato bed.\n",
    "Kitchen.md": "# Kitchen\n\nBread on Saturdays, soup on Sundays. Scraps go to the compost.\n",
    "archive/Compost tea.md": "# Compost tea\n\nSteep a shovel of compost in a bucket of water "
    "for a day, then water the seedlings with it.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("titles")
    for name, text in NOTES.items():
        (root / "vault" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / name).write_text(text, encoding="utf-8")
    handle = Vault(root / "vault", db=root / "index.db")
    handle.index(fast=True)
    return handle


def first(vault: Vault, query: str, **options: object) -> str:
    return vault.search(SearchRequest(query, **options)).results[0].file_path  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "vector"])
def test_the_note_titled_as_the_query_comes_first(vault: Vault, mode: str) -> None:
    assert first(vault, "compost", mode=mode) == "Compost.md"
    assert first(vault, "compost", mode=mode, notes=True) == "Compost.md"
    assert first(vault, "  COMPOST ", mode=mode) == "Compost.md", "case and spaces aside"
    assert first(vault, "compost tea", mode=mode) == "archive/Compost tea.md"


def test_other_results_keep_their_order(vault: Vault) -> None:
    ranked = [r.citation for r in vault.search("compost", mode="bm25").results]
    assert ranked[0] == "Compost.md"
    assert ranked[1:] == [c for c in ranked[1:] if c != "Compost.md"]
    assert ranked.index("Garden plan.md#Soil") < ranked.index("Kitchen.md"), "fused order kept"


def test_the_filters_still_decide(vault: Vault) -> None:
    outside = SearchRequest("compost", filters=Filters(folder="archive"))
    assert {r.file_path for r in vault.search(outside).results} == {"archive/Compost tea.md"}


def test_the_titled_note_is_found_beyond_the_ranked_lists(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranked lists only one hit long: the note named by the query still comes first."""
    monkeypatch.setattr(retriever_module, "BM25_TOP_K", 1)
    monkeypatch.setattr(retriever_module, "VECTOR_TOP_K", 1)
    response = vault.search("compost", limit=5)
    assert [r.file_path for r in response.results][:2] == ["Compost.md", "Garden plan.md"]
    assert response.results[0].bm25_rank is None and response.results[0].vec_rank is None
    assert not any(notice.startswith("weak") for notice in response.notices), "a named note"


def test_a_query_that_only_contains_a_title_is_ranked_as_usual(vault: Vault) -> None:
    assert first(vault, "compost mulch keeps moisture", mode="bm25") == "Garden plan.md"
