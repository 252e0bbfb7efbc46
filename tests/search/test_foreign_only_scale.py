"""The multilingual list cut to the chunks not in the question's language keeps the scale of all
its hits (search/language_routing.py): its best foreign chunk is not stretched to 1.0 when a
closer chunk in the question's language was cut away. Real index of a tiny mixed vault."""

from __future__ import annotations

import pytest

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.fusion import fuse_scores
from vaultctx.search.retriever import RankedList, _foreign_only

NOTES = {
    "Compost.md": "# Compost\n\nTurn the heap weekly; mix kitchen greens with dry leaves.\n",
    "Trains.md": "# Trains\n\nThe night train to Vienna leaves at ten and carries bicycles.\n",
    "자전거 정비.md": "# 자전거 정비\n\n체인의 기름때는 헌 칫솔로 닦고 마른 뒤 윤활유를 바른다.\n",
}


def test_the_foreign_chunks_keep_the_scale_of_every_hit(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    root = tmp_path_factory.mktemp("foreign")
    (root / "vault").mkdir()
    for name, text in NOTES.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    db = open_index(vault.db_path, readonly=True)
    try:
        chunk = dict(
            db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id")
        )
        korean = chunk["자전거 정비.md"]
        hits = [(chunk["Compost.md"], 0.9), (korean, 0.5), (chunk["Trains.md"], 0.3)]
        ranked = RankedList("vector", hits, 1.0, "chunk_vecs_multi")
        foreign = _foreign_only(db, ranked, "en")
    finally:
        db.close()
    assert foreign.hits == [(korean, 0.5)]
    assert foreign.bounds == (0.3, 0.9)
    assert (foreign.ranker, foreign.weight, foreign.table) == ("vector", 1.0, "chunk_vecs_multi")
    # Fused on that scale, the Korean chunk counts (0.5 - 0.3) / (0.9 - 0.3) of its weight.
    [fused] = fuse_scores([foreign.hits], [1.0], [foreign.bounds])
    assert fused.score == pytest.approx(1 / 3)
