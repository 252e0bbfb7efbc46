"""How much the vector lists count against the keyword list, pinned on small real indexes.

Measured (docs/benchmarks.md, "Fusion"): BM25 is the stronger ranker, so a vector list only
nudges: a note that holds the word searched for stays first even when another note is far closer
in meaning, and that closer note still comes right after it, ahead of notes that share neither
the word nor the meaning. Score fusion scales each list to 0–1, so the note holding the word
scores 1 + w·v (v its place in the vector list, 0.13 here for both models) and the nearest note
w: a vector weight of 1 or more puts the nearest note first, a weight of 0 drops it.
"""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.request import Weights

TAXES = (
    "# Taxes\n\nFile the annual return before the deadline. Keep receipts for every deduction: "
    "the accountant, the home office, the train pass and the bicycle used for work. Interest from "
    "savings is declared separately, and the pension contributions go on the second page of the "
    "form. Council tax is paid monthly by direct debit from the joint account. Charitable "
    "donations qualify for relief when the receipt names the charity and the amount. Capital "
    "gains on shares sold this year stay under the annual allowance, so nothing extra is owed.\n"
)
NOTES = {
    "commute.md": "# Commuting\n\nRide the bike to work; lock it to the rack and carry a spare "
    "inner tube.\n",
    "taxes.md": TAXES,  # the only note holding the word "bicycle", in passing
    "compost.md": "# Compost\n\nTurn the compost heap weekly and keep it as damp as a wrung-out "
    "sponge.\n",
    "bread.md": "# Sourdough\n\nFeed the starter the night before; bake the loaf in a hot dutch "
    "oven.\n",
    "wal.md": "# Write-ahead log\n\nSQLite checkpoints keep the write-ahead log small; a long "
    "reader blocks the checkpoint.\n",
}


@pytest.fixture(scope="module", params=["static", "transformer"])
def vault(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = tmp_path_factory.mktemp(f"fusion-{request.param}")
    handle = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    handle.index(fast=request.param == "static")
    table = "chunk_vecs" if request.param == "static" else "chunk_vecs_quality"
    assert [s.table for s in handle.retriever().vector_sources()] == [table], "precondition"
    return handle


def paths(vault: Vault, query: str, **options: object) -> list[str]:
    return [result.file_path for result in vault.search(query, **options).results]


def test_the_note_holding_the_word_leads_and_the_nearest_in_meaning_follows(vault: Vault) -> None:
    assert paths(vault, "bicycle", mode="bm25") == ["taxes.md"], "precondition"
    assert paths(vault, "bicycle", mode="vector")[0] == "commute.md", "precondition"
    assert paths(vault, "bicycle")[:2] == ["taxes.md", "commute.md"]


def test_the_note_holding_the_word_would_lose_to_an_equal_vector_weight(vault: Vault) -> None:
    """The order above is the weights' doing: the user's own weights can turn it round."""
    assert paths(vault, "bicycle", weights=Weights(vector=1.25))[:2] == ["commute.md", "taxes.md"]
