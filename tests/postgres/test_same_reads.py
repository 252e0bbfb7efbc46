"""Every read the API makes of the index answers the same from both stores: filters, listings,
tags, links, notes, graph search, context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.postgres.conftest import location_for
from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.indexer import Indexer
from vaultctx.search.filters import Filters
from vaultctx.search.request import SearchRequest

FILTERS = [
    Filters(),
    Filters(folder="10-projects"),
    Filters(tags=["daily"]),
    Filters(note_type="NOTE"),
    Filters(where=["status = active"]),
    Filters(folder="30-resources", where=["type = note"]),
    Filters(since="2000-01-01"),
]


def _answers(vault: Vault) -> dict[str, Any]:
    answers: dict[str, Any] = {"tags": vault.tag_counts()}
    for index, filters in enumerate(FILTERS):
        listed = vault.list_notes(filters, limit=50)
        answers[f"list {index}"] = sorted(n.path for n in listed.notes)
        found = vault.search(SearchRequest("review notes", limit=6, filters=filters)).results
        answers[f"search {index}"] = [r.citation for r in found]
    answers["graph"] = [
        (r.citation, r.graph is not None)
        for r in vault.search(SearchRequest("billing service", limit=6, graph=True)).results
    ]
    answers["links"] = repr(vault.links("Billing service"))
    answers["broken"] = sorted(repr(link) for link in vault.broken_links())
    answers["note"] = vault.read_note("Billing service").text
    answers["context"] = vault.context("how do we deploy").markdown
    answers["korean"] = vault.korean_share()
    return answers


def test_the_api_reads_the_same_from_both_stores(
    example_vault: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    found = {}
    for kind in ("sqlite", "postgres"):
        db = location_for(kind, example_vault, tmp_path, request)
        Indexer(Config(vault=example_vault, db=db, settings=Settings()), StaticEmbedder()).run(
            fast=True
        )
        vault = Vault(example_vault, db=db)
        try:
            found[kind] = _answers(vault)
        finally:
            vault.close()
    assert found["sqlite"]["list 1"] and found["sqlite"]["list 4"]  # the filters select
    assert found["sqlite"]["list 1"] != found["sqlite"]["list 0"]
    for key, expected in found["sqlite"].items():
        assert found["postgres"][key] == expected, key
