"""The retriever's last steps, each on hand-made input: where a fused entry's ranks come from
(``_candidate``), how deep a ranker looks (``_pool``), what the weak-match notice reports
(``_weak_match_notice``) and which fields an output scrub covers (``_budgeted``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.fusion import Fused
from vaultctx.search.graph import GraphOrigin
from vaultctx.search.ranking_constants import NOTE_POOL_PER_RESULT
from vaultctx.search.request import SearchRequest
from vaultctx.search.retriever import (
    RankedList,
    Retriever,
    SearchResult,
    _budgeted,
    _candidate,
    _pool,
    _Search,
    _weak_match_notice,
)

# A GitHub token shape the scrubber knows (random-looking, so no placeholder rule spares it).
TOKEN = "ghp_" + "Zq8Rk2Lw7Xv4Nb9Tc3Hy6Jm1Pd5Gf0Se8Ua4W"

LISTS = [
    RankedList("bm25", [], 1.0),
    RankedList("vector", [], 1.0),
    RankedList("graph", [], 1.0),
    RankedList("title", [], 0.0),
]


def test_a_candidate_takes_its_keyword_rank_and_its_best_vector_or_graph_rank() -> None:
    origin = GraphOrigin("seed", 0, 0.5, 0.5)
    candidate = _candidate(Fused(7, 1 / 3, (4, 9, 2, 1)), LISTS, {7: origin, 8: origin})
    assert (candidate.chunk_id, candidate.bm25_rank, candidate.vec_rank) == (7, 4, 2)
    assert candidate.score == 0.333333, "rounded to six places"
    assert candidate.graph is origin
    only_vector = _candidate(Fused(8, 0.5, (None, 3, None, None)), LISTS, {})
    assert (only_vector.bm25_rank, only_vector.vec_rank, only_vector.graph) == (None, 3, None)
    only_keyword = _candidate(Fused(9, 0.5, (5, None, None, 1)), LISTS, {})
    assert (only_keyword.bm25_rank, only_keyword.vec_rank) == (5, None)
    vector_search = [RankedList("vector", [], 1.0), RankedList("title", [], 0.0)]
    unranked = _candidate(Fused(6, 0.5, (2, 1)), vector_search, {})
    assert (unranked.bm25_rank, unranked.vec_rank) == (None, 2), "no keyword list, no keyword rank"


def test_one_result_per_note_widens_every_pool() -> None:
    assert _pool(SearchRequest("q", limit=4), 1) == 1
    assert _pool(SearchRequest("q", limit=4, notes=True), 1) == 4 * NOTE_POOL_PER_RESULT
    assert _pool(SearchRequest("q", limit=2, notes=True), 30) == 30, "never below the top k"


def _vector(hits: list[tuple[int, float]], weak_below: float) -> RankedList:
    return RankedList("vector", hits, 1.0, "t", np.zeros(2, dtype=np.float32), weak_below)


def test_the_weak_notice_reports_the_best_first_hit_of_every_weak_list() -> None:
    lists = [
        RankedList("bm25", [(1, 3.0)], 1.0),
        _vector([(2, 0.21), (3, 0.19)], 0.4),
        _vector([(4, 0.27), (5, 0.2)], 0.3),
        RankedList("title", [], 0.0),
    ]
    notice = _weak_match_notice(lists)
    assert notice == (
        "weak matches: no result contains the query's words and none is close in meaning "
        "(best similarity 0.27); the notes may not cover this, or try other words"
    )


def test_weak_lists_without_hits_report_a_similarity_of_zero() -> None:
    notice = _weak_match_notice([_vector([], 0.3), RankedList("title", [], 0.0)])
    assert notice is not None and "(best similarity 0.00)" in notice


@pytest.mark.parametrize(
    "lists",
    [
        [_vector([(2, 0.1)], 0.3), RankedList("title", [(9, 1.0)], 0.0)],  # a titled note
        [_vector([(2, 0.1)], 0.3), _vector([(4, 0.5)], 0.3)],  # one list is close
        [RankedList("bm25", [(1, 3.0)], 1.0), RankedList("title", [], 0.0)],  # no vectors
    ],
)
def test_no_weak_notice_when_a_title_or_a_close_list_answers(lists: list[RankedList]) -> None:
    assert _weak_match_notice(lists) is None


def test_an_output_scrub_covers_path_title_section_citation_and_text() -> None:
    result = SearchResult(
        file_path=f"keys/{TOKEN}.md",
        title=f"Key {TOKEN}",
        section=f"Setup {TOKEN}",
        citation=f"keys/{TOKEN}.md#Setup {TOKEN}",
        text=f"export GITHUB_TOKEN={TOKEN}",
        score=1.0,
        bm25_rank=1,
        vec_rank=None,
        chunk_id=3,
    )
    [scrubbed] = _budgeted([result], 1000, scrub=True)
    for field in ("file_path", "title", "section", "citation", "text"):
        value = getattr(scrubbed, field)
        assert TOKEN not in value and "REDACTED" in value, field
    assert (scrubbed.chunk_id, scrubbed.score, scrubbed.bm25_rank) == (3, 1.0, 1)
    [kept] = _budgeted([result], 1000, scrub=False)
    assert kept == result, "an index this scrubber wrote is not scrubbed twice"


def test_the_budget_cuts_the_texts_and_drops_what_does_not_fit() -> None:
    long = SearchResult("a.md", "A", "", "a.md", "word " * 100, 1.0, 1, None, 1)
    second = SearchResult("b.md", "B", "", "b.md", "other " * 100, 0.5, 2, None, 2)
    [cut] = _budgeted([long, second], 10, scrub=False)  # 40 characters: the first, cut
    assert cut.file_path == "a.md" and cut.text.endswith("…") and len(cut.text) <= 40


def test_fusion_reads_a_cut_lists_bounds_not_its_own_scale(tmp_path: Path) -> None:
    vault = Vault(make_vault(tmp_path / "vault", {"a.md": "# A\n\nalpha\n"}), db=tmp_path / "i.db")
    vault.index(fast=True)
    db = open_index(vault.db_path, readonly=True)
    try:
        retriever = Retriever(db, None)
        search = _Search(SearchRequest("q"), "hybrid", [], None, [])
        cut = RankedList("vector", [(5, 0.5)], 1.0, bounds=(0.3, 0.9))  # one hit of several
        [candidate] = retriever._fuse(search, [cut, RankedList("title", [], 0.0)], {})
    finally:
        db.close()
    assert (candidate.chunk_id, candidate.score) == (5, round(1 / 3, 6))
