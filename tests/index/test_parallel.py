"""Worker processes must build exactly the index the serial path builds, and stop as cleanly."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from tests.index.stopping import StopAfter
from vaultctx.config import Config, Settings, usable_cores
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer, IndexReport
from vaultctx.index.parallel import MIN_FILES_FOR_WORKERS, worker_count
from vaultctx.index.text_codec import unpack_text


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    copy_example_vault(root)
    for i in range(30):
        (root / "bulk").mkdir(exist_ok=True)
        (root / "bulk" / f"note-{i:02}.md").write_text(
            f"# Bulk {i}\n\nTopic {i} covers rollback plan number {i}.\n\n"
            f"## Details\n\nThe password = hunter{i}secret{i}xyz was rotated on day {i}.\n",
            encoding="utf-8",
        )
    return root


def _run(vault: Path, db: Path, embedder: StaticEmbedder, workers: int) -> IndexReport:
    settings = replace(Settings(), index_workers=workers)
    return Indexer(Config(vault=vault, db=db, settings=settings), embedder).run(fast=True)


def _snapshot(db_path: Path) -> tuple[list[tuple[object, ...]], int, list[int]]:
    db = open_index(db_path, readonly=True)
    try:
        chunks = [
            (path, ordinal, section, unpack_text(body), context, bytes(text_hash))
            for path, ordinal, section, body, context, text_hash in db.execute(
                "SELECT f.path, c.ordinal, c.section, c.body, c.heading_context, c.text_hash "
                "FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY f.path, c.ordinal"
            )
        ]
        vectors = int(db.scalar("SELECT count(*) FROM chunk_vecs"))
        hits = [
            int(r[0])
            for r in db.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'rollback'")
        ]
        return chunks, vectors, hits
    finally:
        db.close()


def test_workers_build_the_same_index_as_one_process(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    serial = _run(vault, tmp_path / "serial.db", embedder, workers=1)
    parallel = _run(vault, tmp_path / "parallel.db", embedder, workers=2)
    assert parallel.added == serial.added > 30
    assert parallel.chunks_embedded == serial.chunks_embedded == serial.chunks_written
    assert parallel.secrets_redacted == serial.secrets_redacted
    assert {s["path"] for s in parallel.skipped} == {s["path"] for s in serial.skipped}
    chunks, vectors, hits = _snapshot(tmp_path / "parallel.db")
    assert (chunks, vectors) == _snapshot(tmp_path / "serial.db")[:2]
    assert vectors == len(chunks) and len(hits) >= 30
    assert not any("hunter3secret3xyz" in str(row[3]) for row in chunks)


def test_workers_recognise_unchanged_and_renamed_notes(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    _run(vault, db, embedder, workers=2)
    before = _snapshot(db)
    for path in vault.rglob("*.md"):
        os.utime(path)  # a sync tool touching every file changes no content
    (vault / "bulk" / "note-07.md").rename(vault / "bulk" / "renamed-07.md")
    (vault / "bulk" / "note-08.md").write_text("# Bulk 8\n\nRewritten entirely.\n", "utf-8")
    report = _run(vault, db, embedder, workers=2)
    assert (report.renamed, report.changed, report.added, report.removed) == (1, 1, 0, 0)
    assert report.chunks_embedded == report.chunks_written
    after = _snapshot(db)
    assert len(after[0]) < len(before[0])  # note-08 lost its second section
    assert any(row[0] == "bulk/renamed-07.md" for row in after[0])


def test_stop_in_parallel_run_commits_whole_files_and_resumes(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    settings = replace(Settings(), index_workers=2)
    indexer = Indexer(Config(vault=vault, db=db, settings=settings), embedder)

    indexer.progress = StopAfter(indexer, 5)
    first = indexer.run(fast=True)
    assert first.interrupted and first.added == 5
    rest = _run(vault, db, embedder, workers=2)
    assert not rest.interrupted and rest.added > 25 and rest.unchanged == 5
    _run(vault, tmp_path / "clean.db", embedder, workers=1)
    assert _snapshot(db)[:2] == _snapshot(tmp_path / "clean.db")[:2]


def test_worker_count_is_automatic_only_for_large_runs() -> None:
    assert worker_count(Settings(), MIN_FILES_FOR_WORKERS - 1) == 1
    assert worker_count(Settings(), MIN_FILES_FOR_WORKERS) == usable_cores()
    assert worker_count(replace(Settings(), index_workers=3), 5) == 3


def test_workers_follow_the_cores_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """A container or ``taskset`` CPU set, not the machine's count: more workers only take turns."""
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    for cores, expected in (({0}, 1), ({2, 5}, 2), (set(), 1)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cores=cores: cores)
        assert worker_count(Settings(), MIN_FILES_FOR_WORKERS) == expected
    assert worker_count(replace(Settings(), index_workers=3), MIN_FILES_FOR_WORKERS) == 3
    monkeypatch.delattr(os, "sched_getaffinity")
    assert worker_count(Settings(), MIN_FILES_FOR_WORKERS) == 8
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert worker_count(Settings(), MIN_FILES_FOR_WORKERS) == 1


def test_dead_workers_fall_back_to_one_process(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    from tests.index.dying_embedder import DyingInWorkers

    settings = replace(Settings(), index_workers=2)
    config = Config(vault=vault, db=tmp_path / "fallback.db", settings=settings)
    report = Indexer(config, DyingInWorkers()).run(fast=True)
    assert any("worker processes failed" in w for w in report.warnings), report.warnings
    assert not report.interrupted and report.added > 30
    _run(vault, tmp_path / "serial.db", embedder, workers=1)
    assert _snapshot(tmp_path / "fallback.db")[:2] == _snapshot(tmp_path / "serial.db")[:2]


def test_a_prepared_file_survives_the_trip_from_a_worker_whole(
    vault: Path, embedder: StaticEmbedder
) -> None:
    """Chunks travel as tuples (``PreparedFile.__getstate__``): every field must come back."""
    import pickle

    from vaultctx.index.prepare import ChunkRow, PreparedFile, embed_rows, parse_and_chunk
    from vaultctx.vault.scanner import scan_vault

    note = next(f for f in scan_vault(vault).files if f.path == "bulk/note-03.md")
    prepared = PreparedFile(note, content_hash="abc")
    parse_and_chunk(prepared, (vault / note.path).read_text("utf-8"), Settings())
    embed_rows(prepared.chunks, embedder, 64)
    prepared.chunks.append(
        ChunkRow(7, "s", "a > b", "t", "c", b"h", b"z", ("x", "y", "w"), b"v", b"q")
    )
    assert len(prepared.chunks) >= 2 and prepared.secrets
    copy = pickle.loads(pickle.dumps(prepared))
    assert copy == prepared
    assert all(type(row) is ChunkRow for row in copy.chunks)
