"""BM25's top k by MaxScore on PostgreSQL (postgres/bm25_topk.py) is the full ranking's, to the
bit, and FTS5's: where the rare word's rows win (the pruned answer is used), where rows without
it win (the check must fail and the ranking widen), with a note filter, and when the index
changes between the word counts and the ranking."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.postgres.bm25_paths import every_posting_scored, spy
from tests.postgres.conftest import location_for
from vaultctx.config import Config, Settings
from vaultctx.db_location import IndexLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres import bm25_topk, fts
from vaultctx.index.search_queries import bm25_candidates

WEIGHTS = (1.0, 0.5, 2.0)
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"


def _vault(root: Path, *, rare_wins: bool) -> Path:
    """200 notes with "alpha", 40 with "beta", 8 with "zeta". ``rare_wins``: the zeta notes are
    short with zeta thrice (they top any ranking); otherwise they are long with zeta once and
    the short beta notes, beta four times, rank above them."""
    root.mkdir()
    for n in range(200):
        words = ["alpha", FILLER]
        if n < 40:
            words.append("beta beta beta beta" if not rare_wins else "beta " + FILLER)
        if 100 <= n < 108:
            words.append("zeta zeta zeta" if rare_wins else "zeta " + " ".join([FILLER] * 6))
        (root / f"n{n:03d}.md").write_text(" ".join(words) + "\n", encoding="utf-8")
    return root


def _both(vault: Path, tmp_path: Path, request: pytest.FixtureRequest) -> list[IndexLocation]:
    found = []
    for kind in ("sqlite", "postgres"):
        location = location_for(kind, vault, tmp_path, request)
        Indexer(Config(vault=vault, db=location, settings=Settings()), StaticEmbedder()).run(
            fast=True
        )
        found.append(location)
    return found


def _full(db: Any, match: str, limit: int, files: list[int] | None = None) -> Any:
    return every_posting_scored(db, match, limit, WEIGHTS, files)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """MaxScore's answers, tried first whatever share of the postings its split reads."""
    monkeypatch.setattr(fts, "_MAXSCORE_SHARE", 1.0)
    return spy(monkeypatch, bm25_topk)


@pytest.mark.parametrize("rare_wins", [True, False])
def test_the_top_k_equals_the_full_ranking_and_fts5(
    rare_wins: bool, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "vault", rare_wins=rare_wins)
    sqlite, postgres = _both(vault, tmp_path, request)
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    try:
        answers = _spy(monkeypatch)
        pruned: list[bool] = []
        for match, limit, files, zeta_wins in (
            ('"zeta" OR "beta" OR "alpha"', 3, None, rare_wins),
            ('"alpha" OR "zeta"', 3, None, True),
            ('"zeta" OR "beta" OR "alpha"', 3, list(range(30, 140)), rare_wins),
        ):
            expected = bm25_candidates(a, match, limit, WEIGHTS, files)
            answers.clear()
            found = bm25_candidates(b, match, limit, WEIGHTS, files)
            pruned.append(answers[0] is not None)
            assert found == _full(b, match, limit, files)  # the same rows, scores to the bit
            assert [i for i, _ in found] == [i for i, _ in expected], match
            assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-9)
            zeta_rows = {i for i, _ in bm25_candidates(b, '"zeta"', 50, WEIGHTS)}
            assert ({i for i, _ in found} <= zeta_rows) == zeta_wins, match
        # Where the rare word's rows win, the first candidates' answer stood.
        assert pruned[1] and (not rare_wins or all(pruned))
    finally:
        a.close()
        b.close()


def test_a_write_between_the_counts_and_the_ranking_ranks_in_full(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "vault", rare_wins=True)
    location = location_for("postgres", vault, tmp_path, request)
    Indexer(Config(vault=vault, db=location, settings=Settings()), StaticEmbedder()).run(fast=True)
    reader, writer = open_index(location, readonly=True), open_index(location)
    try:
        match = '"zeta" OR "beta" OR "alpha"'
        answers = _spy(monkeypatch)
        before = fts.bm25(reader, match, 3, WEIGHTS)
        assert answers == [before]  # pruned, and the counts are now kept
        ranked = bm25_topk._ranked

        def written_meanwhile(*args: Any) -> Any:
            with writer.transaction():
                pass  # a commit: the version moves on
            return ranked(*args)

        monkeypatch.setattr(bm25_topk, "_ranked", written_meanwhile)
        assert fts.bm25(reader, match, 3, WEIGHTS) == before
        assert answers[-1] is None  # noticed: ranked in full, counts dropped
        assert reader._bm25_counts is None  # type: ignore[attr-defined]
    finally:
        reader.close()
        writer.close()
