"""The multilingual pass stores each chunk's own vector, whatever order it embeds them in.

The pass sorts chunks by length and hands them to the engine eight at a time; the engine cuts
windows and sorts those by token count again. A slip in either mapping back would give a chunk
its neighbour's vector, which no count or shape check sees: here every stored vector is compared
with the vector of its chunk embedded alone.
"""

from __future__ import annotations

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
from vaultctx.index.schema import MULTI_TABLE
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
