"""The in-memory ranker's top ``k`` of many vectors is sqlite-vec's (search/vector_memory.py). It
picks the ``k`` best with a partial sort, which must settle all ``k`` places. numpy's
partition puts all of the ``k - 1`` best first anyway for a few hundred values or less, except
when asked to settle the last place: with ``k`` 1 and more than 256 vectors a partition around
the wrong place hands back an arbitrary chunk, so the index here holds 300."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.search.vector import vector_search
from vaultctx.search.vector_memory import InMemoryVectors

WORDS = [
    "backup",
    "database",
    "garden",
    "tomato",
    "lighthouse",
    "bread",
    "deploy",
    "kubernetes",
    "meeting",
    "roadmap",
    "bicycle",
    "chain",
    "compost",
    "heap",
    "kitchen",
    "river",
    "mountain",
    "winter",
    "invoice",
    "budget",
]
QUERIES = ("database backup", "tomato garden", "bicycle chain", "winter mountain river")


def test_every_k_below_the_vector_count_is_sqlite_vecs_top_k(tmp_path: Path) -> None:
    triples = list(itertools.combinations(WORDS, 3))[:300]
    notes = {
        f"n{i:03}.md": f"# {a} {b}\n\nAbout {a}, {b} and {c}.\n"
        for i, (a, b, c) in enumerate(triples)
    }
    Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "i.db").index(fast=True)
    db = open_index(tmp_path / "i.db", readonly=True)
    try:
        memory = InMemoryVectors(db)
        memory.load([VECTOR_TABLE], wait=True)
        engine = StaticEmbedder()
        for query, k in itertools.product(QUERIES, (1, 2, 5, 40)):
            vector = engine.embed([query])[0]
            in_memory = memory.search(VECTOR_TABLE, vector, k)
            on_disk = vector_search(db, VECTOR_TABLE, vector, k)
            assert in_memory is not None and len(in_memory) == k
            assert [cid for cid, _ in in_memory] == [cid for cid, _ in on_disk], (query, k)
            assert [s for _, s in in_memory] == pytest.approx([s for _, s in on_disk], abs=1e-6)
    finally:
        db.close()
