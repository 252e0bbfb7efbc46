"""The retriever holder's lifecycle and the model-hash check of its vector sources, and RRF's
default weights (search/vector_sources.py, search/fusion.py), in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.embed.base import Embedder
from vaultctx.errors import VaultctxError
from vaultctx.search.fusion import fuse_rrf
from vaultctx.search.vector_sources import IndexRetriever, _stored_hash_matches


class Engine:
    name = "remote-x"

    def __init__(self, model_hash: str | None) -> None:
        self._hash = model_hash

    @property
    def model_hash(self) -> str:
        if self._hash is None:
            raise VaultctxError("the provider did not answer", "try again")
        return self._hash


def engine(model_hash: str | None) -> Embedder:
    return cast(Embedder, Engine(model_hash))


def test_vectors_are_used_only_when_the_stored_hash_is_the_engines() -> None:
    notices: list[str] = []
    assert _stored_hash_matches("h1", engine("h1"), notices)
    assert not _stored_hash_matches("h1", engine("h2"), notices)
    assert not _stored_hash_matches(None, engine("h1"), notices), "no vectors stored"
    assert notices == []


def test_an_engine_that_cannot_tell_its_hash_is_skipped_and_named() -> None:
    notices: list[str] = []
    assert not _stored_hash_matches("h1", engine(None), notices)
    assert notices == [
        "the embedding engine remote-x is unavailable (the provider did not answer): "
        "searching without its vectors"
    ]


def test_closing_closes_the_index_and_closing_twice_or_unopened_is_harmless(
    tmp_path: Path,
) -> None:
    handle = Vault(make_vault(tmp_path / "vault", {"a.md": "# A\n\nalpha\n"}), db=tmp_path / "i.db")
    handle.index(fast=True)
    holder = IndexRetriever(tmp_path / "i.db", static=lambda: engine("h"), quality=lambda: None)
    holder.close()
    retriever = holder.get(vectors=False)
    db: Any = retriever.db
    holder.close()
    with pytest.raises(Exception, match="closed"):
        db.execute("SELECT 1")
    holder.close()
    assert holder.get(vectors=False) is not retriever


def test_rrf_weighs_every_list_alike_by_default() -> None:
    fused = {f.id: f for f in fuse_rrf([[1, 2], [2, 3]], k=60)}
    assert fused[2].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1].score == pytest.approx(1 / 61)
    assert fused[3].score == pytest.approx(1 / 62)
    assert fused[2].ranks == (2, 1)


def test_rrf_wants_one_weight_per_list() -> None:
    with pytest.raises(ValueError) as refused:
        fuse_rrf([[1], [2]], [1.0])
    assert str(refused.value) == "one weight per ranking"
