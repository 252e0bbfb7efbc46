"""The writer's batches: many files per transaction, rows gathered across files.

New files get writer-numbered ids in one ``executemany`` while changed files keep theirs through
the upsert, in the same batch. Whatever mix of new, changed, renamed and removed files one run
writes, the index must equal a fresh full index of the same vault.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.config import Config, Settings
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index import indexer as indexer_module
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.text_codec import unpack_text


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def _note(i: int, extra: str = "") -> str:
    return (
        f"---\ntags: [batch, n{i % 3}]\n---\n# Note {i}\n\nBody of note {i} about topic{i}. "
        f"See [[note-{(i + 1) % 40}]] and [link](https://example.com/{i}).\n\n"
        f"## Details\n\n{'Detail sentence. ' * (i % 5 + 1)}{extra}\n"
    )


def _view(db_path: Path) -> dict[str, list[tuple[object, ...]]]:
    """The index by path, ids left out (they depend on the order files were written in)."""
    db = open_index(db_path, readonly=True)
    try:
        return {
            "files": sorted(
                tuple(row)
                for row in db.execute("SELECT path, content_hash, title, tags FROM files")
            ),
            "chunks": sorted(
                (str(path), int(ordinal), unpack_text(body), str(context))
                for path, ordinal, body, context in db.execute(
                    "SELECT f.path, c.ordinal, c.body, c.heading_context "
                    "FROM chunks c JOIN files f ON f.id = c.file_id"
                )
            ),
            "links": sorted(
                tuple(row)
                for row in db.execute(
                    "SELECT f.path, l.target, l.kind, l.line FROM links l "
                    "JOIN files f ON f.id = l.file_id"
                )
            ),
            "tags": sorted(
                tuple(row)
                for row in db.execute(
                    "SELECT f.path, t.tag FROM file_tags t JOIN files f ON f.id = t.file_id"
                )
            ),
            "fts": sorted(
                tuple(row)
                for row in db.execute(
                    "SELECT f.path, c.ordinal FROM chunks_fts JOIN chunks c "
                    "ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id "
                    "WHERE chunks_fts MATCH 'topic7 OR detail OR edited'"
                )
            ),
            "orphans": [
                tuple(row)
                for row in db.execute(
                    "SELECT 'chunk', count(*) FROM chunks WHERE file_id NOT IN "
                    "(SELECT id FROM files) UNION ALL SELECT 'vector', count(*) FROM chunk_vecs "
                    "WHERE rowid NOT IN (SELECT id FROM chunks) UNION ALL SELECT 'fts', count(*) "
                    "FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks)"
                )
            ],
        }
    finally:
        db.close()


def _config(vault: Path, db: Path) -> Config:
    return Config(vault=vault, db=db, settings=replace(Settings(), index_workers=1))


@pytest.mark.parametrize("batch_chunks", [1, 7, 1024])
def test_a_mixed_run_equals_a_fresh_full_index(
    tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch, batch_chunks: int
) -> None:
    monkeypatch.setattr(indexer_module, "WRITE_BATCH_CHUNKS", batch_chunks)
    vault = make_vault(tmp_path / "vault", {f"note-{i}.md": _note(i) for i in range(40)})
    db = tmp_path / "index.db"
    first = Indexer(_config(vault, db), embedder).run(fast=True)
    assert first.added == 40

    for i in range(0, 40, 3):  # changed
        (vault / f"note-{i}.md").write_text(_note(i, "Edited paragraph."), encoding="utf-8")
    for i in range(40, 52):  # new, interleaved with the changed ones in path order
        (vault / f"note-{i}.md").write_text(_note(i), encoding="utf-8")
    (vault / "note-1.md").rename(vault / "renamed-1.md")
    (vault / "note-2.md").unlink()
    second = Indexer(_config(vault, db), embedder).run(fast=True)
    assert (second.changed, second.added, second.renamed, second.removed) == (14, 12, 1, 1)

    fresh = tmp_path / "fresh.db"
    Indexer(_config(vault, fresh), embedder).run(fast=True)
    incremental, full = _view(db), _view(fresh)
    assert incremental == full
    assert incremental["orphans"] == [("chunk", 0), ("vector", 0), ("fts", 0)]
    assert len(incremental["files"]) == 51
    assert any(path == "renamed-1.md" for path, *_ in incremental["files"])


def test_new_files_get_the_ids_sqlite_would_give(
    tmp_path: Path, embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writer-numbered ids continue after the largest id, also after files were removed."""
    monkeypatch.setattr(indexer_module, "WRITE_BATCH_CHUNKS", 5)
    vault = make_vault(tmp_path / "vault", {f"note-{i}.md": _note(i) for i in range(10)})
    db = tmp_path / "index.db"
    Indexer(_config(vault, db), embedder).run(fast=True)
    (vault / "note-9.md").unlink()
    (vault / "note-0.md").unlink()
    Indexer(_config(vault, db), embedder).run(fast=True)
    for i in range(10, 14):
        (vault / f"note-{i}.md").write_text(_note(i), encoding="utf-8")
    Indexer(_config(vault, db), embedder).run(fast=True)
    index = open_index(db, readonly=True)
    try:
        ids = dict(index.execute("SELECT path, id FROM files"))
        chunk_ids = [int(r[0]) for r in index.execute("SELECT id FROM chunks ORDER BY id")]
    finally:
        index.close()
    assert [ids[f"note-{i}.md"] for i in range(10, 14)] == [10, 11, 12, 13]
    assert len(chunk_ids) == len(set(chunk_ids))
