"""BM25's top k from the stored block bounds (postgres/bm25_blocks.py, migration pg003) is the
full ranking's, to the bit, and FTS5's: on words in most rows (where MaxScore cannot prune),
with a phrase counted in Python, with a note filter and other column weights; after notes are
added into a block that already has rows, changed and deleted; and a word whose postings have
no bounds is ranked in full."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.postgres.bm25_paths import every_posting_scored, spy
from tests.postgres.conftest import location_for
from vaultctx.config import Config, Settings
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres import bm25_blocks, bm25_topk, fts
from vaultctx.index.search_queries import bm25_candidates

FILLER = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
]
QUERIES = (
    '"alpha" OR "beta" OR "gamma"',
    '"beta" OR "gamma"',
    '"gamma"',
    '"beta gamma" OR "alpha"',
)


def _note(rng: random.Random) -> str:
    """A one-chunk note: each word in most notes, repeated 1-4 times, in 3-60 filler words."""
    words = [rng.choice(FILLER) for _ in range(rng.randint(3, 60))]
    for word, share in (("alpha", 0.9), ("beta", 0.6), ("gamma", 0.4)):
        if rng.random() < share:
            for _ in range(rng.randint(1, 4)):
                words.insert(rng.randint(0, len(words)), word)
    if rng.random() < 0.2:
        words.insert(rng.randint(0, len(words)), "beta gamma")
    return " ".join(words) + "\n"


def _vault(root: Path, notes: int, seed: int) -> Path:
    rng = random.Random(seed)
    root.mkdir(exist_ok=True)
    for n in range(notes):
        (root / f"n{n:03d}.md").write_text(_note(rng), encoding="utf-8")
    return root


def _index(vault: Path, location: IndexLocation) -> None:
    Indexer(Config(vault=vault, db=location, settings=Settings()), StaticEmbedder()).run(fast=True)


_full = every_posting_scored


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The blocks' answers; MaxScore never tried."""
    monkeypatch.setattr(bm25_topk, "top", lambda *args, **kwargs: None)
    return spy(monkeypatch, bm25_blocks)


def _assert_same(sqlite: IndexLocation, postgres: IndexLocation, answers: list[Any]) -> None:
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    try:
        files = [int(r[0]) for r in b.execute("SELECT id FROM files ORDER BY path LIMIT 150")]
        for weights in ((1.0, 0.5, 0.3), (1.0, 0.5, 2.0)):
            for match in QUERIES:
                for limit, where in ((3, None), (10, None), (4, files)):
                    expected = bm25_candidates(a, match, limit, weights, where)
                    answers.clear()
                    found = bm25_candidates(b, match, limit, weights, where)
                    assert answers and answers[0] is not None, match  # the blocks answered
                    assert found == _full(b, match, limit, weights, where), match  # to the bit
                    assert [i for i, _ in found] == [i for i, _ in expected], match
                    assert [s for _, s in found] == pytest.approx(
                        [s for _, s in expected], abs=1e-9
                    )
    finally:
        a.close()
        b.close()


def test_the_blocks_top_k_equals_the_full_ranking_and_fts5(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "vault", 400, seed=7)
    sqlite, postgres = (location_for(k, vault, tmp_path, request) for k in ("sqlite", "postgres"))
    _index(vault, sqlite)
    _index(vault, postgres)
    answers = _spy(monkeypatch)
    _assert_same(sqlite, postgres, answers)
    db = open_index(postgres, readonly=True)
    try:
        blocks = db.execute("SELECT count(DISTINCT block) FROM fts_blocks").fetchone()[0]
        assert blocks >= 6  # 400 one-chunk notes: the ranking really chose among blocks
    finally:
        db.close()


def test_the_bounds_follow_added_changed_and_deleted_notes(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New notes land in a block that already has rows (its bound must grow: the new notes are
    the short, many-times-"gamma" ones that top the ranking); changed notes get new chunk ids;
    deleted ones leave their bounds behind."""
    vault = _vault(tmp_path / "vault", 100, seed=11)
    sqlite, postgres = (location_for(k, vault, tmp_path, request) for k in ("sqlite", "postgres"))
    _index(vault, postgres)
    _index(vault, sqlite)  # both stores number the chunks alike
    for n in range(4):
        (vault / f"top{n}.md").write_text("gamma gamma gamma gamma beta alpha\n", encoding="utf-8")
    for n in range(0, 30, 3):
        (vault / f"n{n:03d}.md").write_text("alpha beta gamma " * (n % 5 + 1), encoding="utf-8")
    for n in range(1, 40, 4):
        (vault / f"n{n:03d}.md").unlink()
    _index(vault, postgres)
    _index(vault, sqlite)
    db = open_index(postgres, readonly=True)
    try:  # the new rows share a block with older ones: that block has two rows for "gamma"
        rows = db.execute(
            "SELECT max(c) FROM (SELECT count(*) AS c FROM fts_blocks WHERE term = 'gamma' "
            "GROUP BY block) x"
        ).fetchone()[0]
        assert rows >= 2
    finally:
        db.close()
    _assert_same(sqlite, postgres, _spy(monkeypatch))


def test_a_block_is_bounded_by_its_shortest_row_not_its_longest(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight blocks of 64 one-chunk notes, "alpha" and "beta" once in each; the notes of block
    6 are twice as long as the others, but three of them are three words long and top the
    ranking. A bound taken from the block's longest row would rank block 6 below the others'
    rows and leave the three out."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(512):
        words = 100 if n // 64 == 6 else 50
        body = (
            "alpha alpha beta"
            if n in (400, 401, 402)
            else " ".join(["alpha", "beta", *(FILLER[i % len(FILLER)] for i in range(words))])
        )
        (vault / f"n{n:03d}.md").write_text(body + "\n", encoding="utf-8")
    postgres = location_for("postgres", vault, tmp_path, request)
    _index(vault, postgres)
    db = open_index(postgres, readonly=True)
    try:
        answers = _spy(monkeypatch)
        found = fts.bm25(db, '"alpha" OR "beta"', 3, (1.0, 0.5, 0.3))
        assert answers[0] is not None
        assert found == _full(db, '"alpha" OR "beta"', 3, (1.0, 0.5, 0.3))
        paths = dict(
            db.execute("SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id")
        )
        assert sorted(paths[i] for i, _ in found) == ["n400.md", "n401.md", "n402.md"]
    finally:
        db.close()


def test_a_block_is_bounded_for_the_largest_column_weight(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes of block 6 (and around it) are four times as long as the others; three have
    "alpha" only in their title, which a heading weight of 5 lifts above every other row. A
    bound that took the weights as 1 would leave them out."""
    vault = tmp_path / "vault"
    vault.mkdir()
    for n in range(512):
        words = " ".join(FILLER[i % len(FILLER)] for i in range(200 if 376 <= n < 456 else 50))
        if n in (400, 401, 402):
            (vault / f"n{n} alpha.md").write_text(words + "\n", encoding="utf-8")
        else:
            (vault / f"n{n:03d}.md").write_text(f"alpha {words}\n", encoding="utf-8")
    postgres = location_for("postgres", vault, tmp_path, request)
    _index(vault, postgres)
    db = open_index(postgres, readonly=True)
    try:
        answers = _spy(monkeypatch)
        weights = (1.0, 0.5, 5.0)
        found = fts.bm25(db, '"alpha"', 3, weights)
        assert answers[0] is not None
        assert found == _full(db, '"alpha"', 3, weights)
        paths = dict(
            db.execute("SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id")
        )
        assert sorted(paths[i] for i, _ in found) == [
            "n400 alpha.md",
            "n401 alpha.md",
            "n402 alpha.md",
        ]
    finally:
        db.close()


def test_postings_without_bounds_are_ranked_in_full(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = _vault(tmp_path / "vault", 100, seed=3)
    postgres = location_for("postgres", vault, tmp_path, request)
    _index(vault, postgres)
    assert isinstance(postgres, PostgresLocation)
    db = open_index(postgres)
    try:
        with db.transaction():  # bounds lost for the rows of one block
            db.execute("DELETE FROM fts_blocks WHERE term = 'gamma' AND block = 1")
        answers = _spy(monkeypatch)
        match = '"gamma" OR "alpha"'
        found = fts.bm25(db, match, 5, (1.0, 0.5, 0.3))
        assert answers == [None]  # the rows the bounds count fall short: not trusted
        assert found == _full(db, match, 5, (1.0, 0.5, 0.3))
    finally:
        db.close()


def test_an_index_from_before_pg003_gets_the_bounds_the_indexer_writes(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration computes the bounds from the stored postings in SQL: the same rows, to the
    bit, as the indexer's fold in Python (one write, so one row per word and block)."""
    vault = _vault(tmp_path / "vault", 200, seed=5)
    postgres = location_for("postgres", vault, tmp_path, request)
    _index(vault, postgres)
    bounds = "SELECT term, block, n, ratio, rows FROM fts_blocks ORDER BY term, block"
    db = open_index(postgres)
    try:
        written = db.execute(bounds).fetchall()
        with db.transaction():  # the schema as a vaultctx without pg003 left it
            db.execute("DROP TABLE fts_blocks")
            db.execute("DELETE FROM _migrations WHERE name = 'pg003_block_bounds'")
    finally:
        db.close()
    db = open_index(postgres)  # a writer: migrates
    try:
        assert db.execute(bounds).fetchall() == written
        assert len(written) > 100
        answers = _spy(monkeypatch)
        for match in QUERIES:
            found = fts.bm25(db, match, 5, (1.0, 0.5, 0.3))
            assert answers[-1] is not None
            assert found == _full(db, match, 5, (1.0, 0.5, 0.3))
    finally:
        db.close()


def test_a_question_whose_words_hold_few_rows_is_ranked_in_full(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below ``fts.PRUNE_FROM`` rows over the query's words (each word's rows plus the rows of
    phrases counted in Python) neither pruned ranking is tried; from it on, both are. The
    answer is the same either way."""
    vault = _vault(tmp_path / "vault", 100, seed=5)
    postgres = location_for("postgres", vault, tmp_path, request)
    _index(vault, postgres)
    db = open_index(postgres, readonly=True)
    try:
        match = '"beta gamma" OR "alpha" OR "gamma"'
        words = bm25_topk.counts(db, ["alpha", "gamma"])[2]
        phrase_rows = len(
            fts._frequencies(
                fts.parse('"beta gamma"'),
                fts._fetch(db, fts.parse('"beta gamma"')).postings,
                (1.0, 1.0, 1.0),
            )[0]
        )
        assert phrase_rows > 0
        size = words["alpha"] + words["gamma"] + phrase_rows
        expected = _full(db, match, 5, (1.0, 0.5, 0.3))
        tried: list[str] = []
        for path in (bm25_topk, bm25_blocks):
            monkeypatch.setattr(path, "top", lambda *a, name=path.__name__, **k: tried.append(name))
        for prune_from, pruned in ((size + 1, False), (size, True)):
            monkeypatch.setattr(fts, "PRUNE_FROM", prune_from)
            tried.clear()
            assert fts.bm25(db, match, 5, (1.0, 0.5, 0.3)) == expected
            assert tried == (
                ["vaultctx.index.postgres.bm25_topk", "vaultctx.index.postgres.bm25_blocks"]
                if pruned
                else []
            )
    finally:
        db.close()
