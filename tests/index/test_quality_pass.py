"""Two-pass indexing: pass 2 is resumable, kept current, and search is right while it is partial."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.quality_pass import quality_coverage, run_quality_pass


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    copy_example_vault(tmp_path / "vault")
    return Vault(tmp_path / "vault", db=tmp_path / "index.db")


def _coverage(vault: Vault) -> tuple[int, int]:
    db = open_index(vault.db_path, readonly=True)
    try:
        return quality_coverage(db)
    finally:
        db.close()


def test_fast_stops_after_pass_one_and_full_run_completes(vault: Vault) -> None:
    report = vault.index(fast=True)
    assert report.quality_embedded == 0
    done, total = _coverage(vault)
    assert done == 0 and total == report.chunks_written > 0
    assert vault.search("incident postmortem").results  # searchable after pass 1 alone
    report = vault.index()
    assert report.quality_embedded == total and report.quality_remaining == 0
    assert _coverage(vault) == (total, total)
    assert vault.status().quality_vectors == total


def test_pass_two_resumes_where_it_stopped(vault: Vault) -> None:
    vault.index(fast=True)
    engine = vault.quality_embedder()
    assert engine is not None
    db = open_index(vault.db_path)
    try:
        stop = threading.Event()
        batches: list[int] = []

        def stop_after_first(count: int) -> None:
            batches.append(count)
            stop.set()

        first = run_quality_pass(db, engine, batch_size=8, stop=stop, on_batch=stop_after_first)
        assert first.interrupted and first.chunks_embedded == 8
        done, total = quality_coverage(db)
        assert done == 8
        second = run_quality_pass(db, engine, batch_size=8)
        assert second.chunks_embedded == total - 8 and second.remaining == 0
    finally:
        db.close()


def test_search_while_partial_uses_both_vector_lists(vault: Vault) -> None:
    vault.index(fast=True)
    engine = vault.quality_embedder()
    assert engine is not None
    db = open_index(vault.db_path)
    try:
        stop = threading.Event()
        run_quality_pass(db, engine, batch_size=16, stop=stop, on_batch=lambda _: stop.set())
    finally:
        db.close()
    retriever = vault.retriever()
    tables = [s.table for s in retriever.vector_sources()]
    assert tables == ["chunk_vecs", "chunk_vecs_quality"]
    every_note = {r.file_path for r in vault.search("note", limit=50, mode="vector").results}
    assert len(every_note) > 5  # chunks without a quality vector stay reachable
    vault.close()
    vault.index()
    assert [s.table for s in vault.retriever().vector_sources()] == ["chunk_vecs_quality"]


def test_edits_keep_pass_two_current(vault: Vault) -> None:
    vault.index()
    note = vault.path / "00-inbox" / "fresh idea.md"
    note.write_text("# Fresh idea\n\nA lighthouse keeper's logbook format for on-call handoffs.\n")
    report = vault.index()
    assert report.added == 1 and report.quality_embedded >= 1
    done, total = _coverage(vault)
    assert done == total
