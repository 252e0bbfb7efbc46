"""BM25 column weights (SPEC §6): chunk text 1.0, section 0.5, heading context 0.3, checked against
FTS5's own formula on a real index.

FTS5's bm25() adds each hit's column weight to the phrase frequency f, then scores
idf · f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl)), k1 = 1.2, b = 0.75, negated, with
idf = ln((N − n + 0.5) / (n + 0.5)) for N rows of which n hold the phrase. Every row below holds
six tokens, so D = avgdl and one hit in a column of weight w scores −idf · 2.2w / (w + 1.2): the
three rows, each holding the query word once in a different column, rank by their column's weight
and score exactly that.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from vaultctx.index.db import open_index
from vaultctx.index.indexer import write_fts_rows
from vaultctx.index.prepare import fts_columns
from vaultctx.search.bm25 import bm25_search

IN_TEXT, IN_SECTION, IN_CONTEXT = 1, 2, 3
ROWS = {
    IN_TEXT: ("zephyr alpha beta", "gamma delta", "epsilon"),
    IN_SECTION: ("alpha beta gamma", "zephyr delta", "epsilon"),
    IN_CONTEXT: ("alpha beta gamma", "delta epsilon", "zephyr"),
    **{filler: ("alpha beta gamma", "delta epsilon", "eta") for filler in range(4, 11)},
}


def expected_score(weight: float, rows: int = 10, hits: int = 3) -> float:
    k1 = 1.2
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return -idf * weight * (k1 + 1) / (weight + k1)


def test_each_column_scores_with_its_own_weight(tmp_path: Path) -> None:
    db = open_index(tmp_path / "index.db")
    try:
        with db.transaction():
            write_fts_rows(db, [(rowid, fts_columns(*cols)) for rowid, cols in ROWS.items()])
        hits = bm25_search(db, "zephyr")
    finally:
        db.close()
    assert [rowid for rowid, _ in hits] == [IN_TEXT, IN_SECTION, IN_CONTEXT]
    scores = dict(hits)
    assert scores[IN_TEXT] == pytest.approx(expected_score(1.0), rel=1e-9)
    assert scores[IN_SECTION] == pytest.approx(expected_score(0.5), rel=1e-9)
    assert scores[IN_CONTEXT] == pytest.approx(expected_score(0.3), rel=1e-9)
