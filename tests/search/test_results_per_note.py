"""Results are chunks unless one per note is asked: then each note's best chunk stands for it,
notes are told apart by path (two notes may share a title), and the limit is still filled."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.request import SearchRequest

COMPOST_GUIDE = "\n\n".join(
    f"## {part}\n\nCompost compost compost: the {part.lower()} of a compost heap."
    for part in ("Greens", "Browns", "Turning", "Moisture")
)
NOTES = {
    "guide.md": f"# Compost guide\n\n{COMPOST_GUIDE}\n",
    "garden/Plan.md": "# Plan\n\nSpread compost on the beds in spring.\n",
    "kitchen/Plan.md": "# Plan\n\nKeep a caddy for compost by the sink.\n",
    "soil.md": "# Soil\n\nLeaf mould and compost feed the soil.\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp("per-note")
    handle = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    handle.index(fast=True)
    return handle


def test_chunks_of_one_note_are_separate_results(vault: Vault) -> None:
    paths = [
        r.file_path for r in vault.search(SearchRequest("compost", mode="bm25", limit=4)).results
    ]
    assert paths.count("guide.md") >= 2, paths


def test_one_result_per_note_fills_the_limit_past_a_notes_other_chunks(vault: Vault) -> None:
    response = vault.search(SearchRequest("compost", mode="bm25", limit=4, notes=True))
    paths = [r.file_path for r in response.results]
    assert sorted(paths) == ["garden/Plan.md", "guide.md", "kitchen/Plan.md", "soil.md"]
    assert paths[0] == "guide.md", "the note whose chunks rank first comes first"


def test_two_notes_with_one_title_are_two_results(vault: Vault) -> None:
    response = vault.search(SearchRequest("compost", mode="bm25", limit=10, notes=True))
    plans = [r.file_path for r in response.results if r.title == "Plan"]
    assert sorted(plans) == ["garden/Plan.md", "kitchen/Plan.md"]


def test_every_note_named_by_the_query_is_lifted_not_just_the_first(vault: Vault) -> None:
    results = vault.search(SearchRequest("plan", mode="bm25", limit=10)).results
    assert sorted(r.file_path for r in results[:2]) == ["garden/Plan.md", "kitchen/Plan.md"]
    assert all(r.score > 1.0 for r in results[:2]), "both carry the title list's weight"
