"""The multilingual pass stores each chunk's own vector, whatever order it embeds them in.

The pass sorts chunks by length and hands them to the engine eight at a time; the engine cuts
windows and sorts those by token count again. A slip in either mapping back would give a chunk
its neighbour's vector, which no count or shape check sees: here every stored vector is compared
with the vector of its chunk embedded alone.
"""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.base import embedding_input, quantize_int8
from vaultctx.embed.e5 import E5Embedder
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.index.db import open_index
from vaultctx.index.schema import (
    META_MULTI_MODEL_HASH,
    META_MULTI_MODEL_NAME,
    META_QUALITY_MODEL_NAME,
    MULTI_TABLE,
)
from vaultctx.index.text_codec import unpack_text

pytestmark = pytest.mark.skipif(
    create_multilingual_embedder("auto") is None, reason="no multilingual engine installed"
)

SENTENCE = "강물은 천천히 흘러 바다로 간다. "


def _notes() -> dict[str, str]:
    """Korean notes whose lengths run against their names' order (a short one last, a long one
    first), so sorting by length moves every chunk; two are longer than one window."""
    lengths = [30, 1, 8, 3, 14, 2, 5]
    return {
        f"강-{index:02d}.md": f"# 강 {index}\n\n" + SENTENCE * repeats + f"번호 {index}.\n"
        for index, repeats in enumerate(lengths)
    }


def _stored(db_path: Path) -> dict[int, tuple[str, bytes]]:
    """Embedding input and stored int8 vector of every chunk, by chunk id."""
    with closing(open_index(db_path, readonly=True)) as db:
        rows = db.execute(
            f"SELECT c.id, c.heading_context, c.body, m.embedding FROM chunks c "
            f"JOIN {MULTI_TABLE} m ON m.rowid = c.id"
        ).fetchall()
    return {
        int(cid): (embedding_input(str(context), unpack_text(body)), bytes(blob))
        for cid, context, body, blob in rows
    }


def test_every_chunk_gets_the_vector_of_its_own_text(tmp_path: Path) -> None:
    folder = tmp_path / "vault"
    folder.mkdir()
    for name, text in _notes().items():
        (folder / name).write_text(text, encoding="utf-8")
    settings = Settings(quality_engine="", multilingual_chunks="all")
    vault = Vault(config=Config(folder, tmp_path / "index.db", settings))
    vault.index()
    vault.close()
    stored = _stored(tmp_path / "index.db")
    assert len(stored) == len(_notes())
    engine = E5Embedder()
    alone = {cid: quantize_int8(engine.embed([text])[0]) for cid, (text, _) in stored.items()}
    ids = list(stored)
    found = np.stack([np.frombuffer(stored[cid][1], dtype=np.int8) for cid in ids]).astype(float)
    expected = np.stack([np.frombuffer(alone[cid], dtype=np.int8) for cid in ids]).astype(float)
    found /= np.linalg.norm(found, axis=1, keepdims=True)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    cosines = found @ expected.T
    # Each stored vector is its own chunk's (one window per model call: batch mates change
    # nothing), and closer to it than to any other chunk's.
    assert np.all(np.diag(cosines) > 0.9999), np.diag(cosines)
    assert list(np.argmax(cosines, axis=1)) == list(range(len(ids)))


def test_the_pass_records_its_model_and_its_last_run_under_its_own_keys(tmp_path: Path) -> None:
    """``status`` and the search read the multilingual pass's model and last run from their own
    meta keys, never pass 2's: a run stamps every chunk it embedded, names its model and says
    how it finished."""
    folder = tmp_path / "vault"
    folder.mkdir()
    for name, text in list(_notes().items())[:3]:
        (folder / name).write_text(text, encoding="utf-8")
    settings = Settings(quality_engine="", multilingual_chunks="all")
    vault = Vault(config=Config(folder, tmp_path / "index.db", settings))
    vault.index()
    vault.close()
    with closing(open_index(tmp_path / "index.db", readonly=True)) as db:
        assert db.meta(META_MULTI_MODEL_NAME) == E5Embedder().name
        assert db.meta(META_QUALITY_MODEL_NAME) is None
        last_run = json.loads(str(db.meta("multi_last_run")))
        assert last_run["embedded"] == 3 and last_run["remaining"] == 0
        assert db.meta("quality_last_run") is None
        unstamped = db.scalar("SELECT count(*) FROM chunks WHERE multi_embedded_at IS NULL")
        assert unstamped == 0


def _index_with(folder: Path, db_path: Path, meta: dict[str, str], note: str) -> list[str]:
    """Set ``meta`` in the index, add ``note`` (work for the pass), run ``vaultctx index``
    again: its warnings."""
    with closing(open_index(db_path)) as db, db.transaction():
        for key, value in meta.items():
            db.set_meta(key, value)
    (folder / note).write_text(f"# {note}\n\n" + SENTENCE * 2, encoding="utf-8")
    settings = Settings(quality_engine="", multilingual_chunks="all")
    vault = Vault(config=Config(folder, db_path, settings))
    try:
        return list(vault.index().warnings)
    finally:
        vault.close()


def _last_run_embedded(db_path: Path) -> int:
    with closing(open_index(db_path, readonly=True)) as db:
        return int(json.loads(str(db.meta("multi_last_run")))["embedded"])


def test_another_model_or_another_storage_redoes_every_vector(tmp_path: Path) -> None:
    """Another multilingual model redoes every chunk's vector and says so; vectors stored as
    another type (an index moved between stores) are redone too, not read as they are."""
    folder = tmp_path / "vault"
    folder.mkdir()
    db_path = tmp_path / "index.db"
    assert _index_with(folder, db_path, {}, "하나.md") == []
    assert _last_run_embedded(db_path) == 1
    redone = _index_with(folder, db_path, {META_MULTI_MODEL_HASH: "another-model"}, "둘.md")
    assert redone == ["multilingual model changed: all multilingual vectors redone"]
    assert _last_run_embedded(db_path) == 2
    with closing(open_index(db_path, readonly=True)) as db:
        layout = str(db.meta(f"{MULTI_TABLE}.layout"))
    _index_with(folder, db_path, {f"{MULTI_TABLE}.layout": "float[1024]"}, "셋.md")
    assert _last_run_embedded(db_path) == 3
    with closing(open_index(db_path, readonly=True)) as db:
        assert db.meta(f"{MULTI_TABLE}.layout") == layout
