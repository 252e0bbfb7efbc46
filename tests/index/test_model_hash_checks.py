"""Vectors of two models never mix (SPEC §4): pass 2 redoes every quality vector when its engine
changes, and search queries a vector table only with the engine whose hash the index recorded.

The "other" engines are the bundled static model under another name: a real engine with the same
dimension and a different ``model_hash``, so only the hash can tell them apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.config import Config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.quality_pass import quality_coverage, run_quality_pass

NOTES = {
    "lighthouse.md": "# Lighthouse\n\nThe keeper logs the lamp hours every night.\n",
    "garden.md": "# Garden\n\nTomato seedlings need fourteen hours of light a day.\n",
    "deploys.md": "# Deploys\n\nRoll back with the rollback job, then watch the dashboards.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    return folder


def test_a_new_quality_engine_redoes_every_quality_vector(vault: Path, tmp_path: Path) -> None:
    first, second = StaticEmbedder(name="quality-a"), StaticEmbedder(name="quality-b")
    assert first.dimension == second.dimension and first.model_hash != second.model_hash
    db_path = tmp_path / "index.db"
    Indexer(Config(vault=vault, db=db_path), StaticEmbedder()).run(fast=True)
    db = open_index(db_path)
    try:
        _, total = quality_coverage(db)
        initial = run_quality_pass(db, first)
        assert (initial.chunks_embedded, initial.reset_reason) == (total, None)
        assert run_quality_pass(db, first).chunks_embedded == 0  # same engine: nothing to redo

        switched = run_quality_pass(db, second)
        assert switched.reset_reason == "quality model changed: all quality vectors redone"
        assert switched.chunks_embedded == total and switched.remaining == 0
        assert db.meta("quality_model_hash") == second.model_hash
        assert db.meta("quality_model_name") == "quality-b"
    finally:
        db.close()


def test_quality_vectors_of_another_model_are_not_queried(vault: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "index.db"
    with Vault(vault, db=db_path) as handle:
        handle.index()
        assert [s.table for s in handle.retriever().vector_sources()] == ["chunk_vecs_quality"]
    db = open_index(db_path)
    try:  # another engine's vectors replace the bundled transformer's, every chunk covered
        report = run_quality_pass(db, StaticEmbedder(name="someone-elses-model"))
        assert report.reset_reason is not None and report.remaining == 0
    finally:
        db.close()
    with Vault(vault, db=db_path) as handle:
        assert [s.table for s in handle.retriever().vector_sources()] == ["chunk_vecs"]
        found = handle.search("lamp hours", mode="vector").results
        assert found[0].file_path == "lighthouse.md"


def test_static_vectors_of_another_model_are_not_queried(vault: Path, tmp_path: Path) -> None:
    db_path = tmp_path / "index.db"
    Indexer(Config(vault=vault, db=db_path), StaticEmbedder(name="someone-elses-model")).run(
        fast=True
    )
    with Vault(vault, db=db_path) as handle:
        assert handle.retriever().vector_sources() == []
        found = handle.search("lamp hours").results  # keyword search still answers
        assert found[0].file_path == "lighthouse.md"
