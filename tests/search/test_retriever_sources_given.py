"""A ``Retriever`` built with its vector sources (the public constructor, not through a vault)
asks the ones given: the static vectors alone, the quality vectors alone, or, once pass 2 has
reached every chunk, the quality vectors instead of both."""

from __future__ import annotations

import pytest

from tests.conftest import make_vault
from tests.search.test_vectors_in_memory_from_third_query import NOTES
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.retriever import Retriever, VectorSource


@pytest.fixture(scope="module")
def complete(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """Both passes done: every chunk has a static and a quality vector."""
    root = tmp_path_factory.mktemp("sources")
    vault = Vault(make_vault(root / "vault", NOTES), db=root / "index.db")
    vault.index()
    return vault


def _sources(vault: Vault) -> tuple[VectorSource, VectorSource]:
    static, quality = vault.embedder(), vault.quality_embedder()
    assert static is not None and quality is not None
    return (
        VectorSource("chunk_vecs", lambda query: static.embed([query])[0], 1.0),
        VectorSource("chunk_vecs_quality", lambda query: quality.embed([query])[0], 1.0),
    )


def test_each_source_given_is_asked(complete: Vault) -> None:
    static, quality = _sources(complete)
    db = open_index(complete.db_path, readonly=True)
    try:
        assert Retriever(db, None).vector_sources() == []
        assert Retriever(db, static).vector_sources() == [static]
        assert Retriever(db, None, quality).vector_sources() == [quality]
        both = Retriever(db, static, quality)
        assert both.quality_complete(), "precondition: pass 2 reached every chunk"
        assert both.vector_sources() == [quality]
    finally:
        db.close()
