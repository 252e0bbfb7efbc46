"""The numbers graph expansion works with (search/graph.py): each note's similarity read from
the stored vectors in float32, as the vector search computes it; the first chunk standing for
a note whose chunks tie; and origins rounded to six digits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from tests.conftest import make_vault
from tests.search.test_graph import by_chunk, ids, make_graph, similarity_of
from vaultctx.api import Vault
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.search.graph import Seed, _as_stored, expand, note_similarities

LONG = (
    "# Orchard\n\n## Pruning\n\nPrune the apple trees in late winter, before the sap rises.\n\n"
    "## Harvest\n\nPick the pears when they come away from the branch with a twist.\n"
)
NOTES = {
    "orchard.md": LONG,
    "bread.md": "# Bread\n\nSourdough rises overnight in a cool kitchen.\n",
    "boats.md": "# Boats\n\nThe harbour master logs every boat that leaves at dawn.\n",
}


@pytest.fixture()
def db(tmp_path: Path) -> IndexDatabase:
    vault = Vault(make_vault(tmp_path / "vault", NOTES), db=tmp_path / "index.db")
    vault.index(fast=True)
    return open_index(tmp_path / "index.db")


def _note_ids(db: IndexDatabase) -> dict[str, int]:
    return {str(path): int(i) for i, path in db.execute("SELECT id, path FROM files")}


def _query(text: str) -> npt.NDArray[np.float32]:
    return _as_stored(StaticEmbedder().embed([text])[0])


def test_similarities_are_float32_cosines_of_the_stored_vectors(db: IndexDatabase) -> None:
    """Computed in float32 as sqlite-vec and the in-memory ranker do: a float64 product would
    move a note's similarity in its last digits, and with it ties and rounded scores."""
    try:
        notes = _note_ids(db)
        query = _query("apple trees in winter")
        best = note_similarities(db, VECTOR_TABLE, query, list(notes.values()))
        assert set(best) == set(notes.values())
        rows = db.execute(
            f"SELECT c.id, c.file_id, v.embedding FROM chunks c "
            f"JOIN {VECTOR_TABLE} v ON v.rowid = c.id"
        ).fetchall()
        expected: dict[int, tuple[int, float]] = {}
        for chunk_id, note_id, blob in rows:
            row = np.frombuffer(blob, np.int8).astype(np.float32)
            dot = np.float32(row @ query)
            norms = np.float32(np.linalg.norm(row)) * np.float32(np.linalg.norm(query))
            cosine = float(dot / norms)
            if note_id not in expected or cosine > expected[note_id][1]:
                expected[note_id] = (int(chunk_id), cosine)
        for note_id, (chunk_id, similarity) in best.items():
            assert float(np.float32(similarity)) == similarity
            assert (chunk_id, similarity) == expected[note_id]
        assert best[notes["orchard.md"]][1] == max(s for _, s in best.values())
    finally:
        db.close()


def test_a_note_whose_chunks_tie_is_stood_for_by_its_first(db: IndexDatabase) -> None:
    try:
        note = _note_ids(db)["orchard.md"]
        chunks = [
            int(c)
            for (c,) in db.execute("SELECT id FROM chunks WHERE file_id = ? ORDER BY id", (note,))
        ]
        assert len(chunks) >= 2
        first_blob = bytes(
            db.scalar(f"SELECT embedding FROM {VECTOR_TABLE} WHERE rowid = ?", (chunks[0],))
        )
        for chunk in chunks[1:]:
            db.execute(f"DELETE FROM {VECTOR_TABLE} WHERE rowid = ?", (chunk,))
            db.insert_vectors(VECTOR_TABLE, [(chunk, first_blob)])
        best = note_similarities(db, VECTOR_TABLE, _query("pears and apples"), [note])
        assert list(best) == [note] and best[note][0] == chunks[0]
    finally:
        db.close()


def test_no_note_asked_for_has_no_similarity(db: IndexDatabase) -> None:
    try:
        assert note_similarities(db, VECTOR_TABLE, _query("apples"), []) == {}
        assert note_similarities(db, VECTOR_TABLE, _query("apples"), [10_000]) == {}
    finally:
        db.close()


def test_origins_are_rounded_to_six_digits() -> None:
    graph = make_graph({"s": ["n"], "t": []})
    n = ids(graph)
    seeds = [Seed(1, n["s"], 0.9), Seed(2, n["t"], 0.3)]
    hits = by_chunk(expand(seeds, graph, similarity_of(graph, {"n": 0.7}), depth=1))
    assert (hits[2].relevance, hits[2].score) == (0.333333, 0.333333)
    # 0.6 x 0.7 / 0.9 + 0.4 x 1.0 = 0.8666…, halved for its one hop.
    neighbour = hits[100 + n["n"]]
    assert (neighbour.relevance, neighbour.score) == (0.866667, 0.433333)
