"""A response's ``took_ms`` is the search's own time in milliseconds, from start to end."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import vaultctx.search.retriever as retriever_module
from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.search.request import SearchRequest


def test_took_ms_is_the_time_between_start_and_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = Vault(
        make_vault(tmp_path / "vault", {"a.md": "# A\n\nalpha beta\n"}), db=tmp_path / "i.db"
    )
    vault.index(fast=True)
    retriever = vault.retriever()
    clock = iter([1000.25, 1000.75])  # the retriever's clock, read at the start and at the end
    monkeypatch.setattr(retriever_module, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    response = retriever.search(SearchRequest("alpha", mode="bm25"))
    assert response.took_ms == 500.0
    assert response.as_dict()["took_ms"] == 500.0
