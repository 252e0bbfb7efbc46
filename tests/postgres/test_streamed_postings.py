"""The keyword postings of a batch are streamed to the server in parts (postgres/fts.py
``write_rows``): every chunk of a batch larger than one part arrives, with the positions and
lengths FTS5's tokenizer gives, and nothing twice."""

from __future__ import annotations

from pathlib import Path

from vaultctx.config import Config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.postgres import fts
from vaultctx.index.postgres.store import PostgresIndex

FIRST_ID = 10_000
WORDS = ("tide", "lamp", "keeper", "log", "storm", "harbour", "bell", "fog")


def _columns(n: int) -> tuple[str, str, str]:
    text = " ".join(WORDS[(n * k) % len(WORDS)] for k in range(1, 12 + n % 7))
    section = "" if n % 3 else f"Part {n} tab\there back\\slash"
    return text, section, f"Note {n} > {WORDS[n % len(WORDS)]}"


def _expected(rows: list[tuple[int, tuple[str, str, str]]]) -> set[tuple[object, ...]]:
    """Postings spelled from ``fts.tokens`` alone: (term, chunk, col, n, positions, tokens)."""
    postings: set[tuple[object, ...]] = set()
    for chunk_id, columns in rows:
        found = [fts.tokens(text) for text in columns]
        length = sum(map(len, found))
        for col, terms in enumerate(found):
            for term in set(terms):
                at = [i for i, t in enumerate(terms) if t == term]
                postings.add((term, chunk_id, col, len(at), tuple(at), length))
    return postings


def test_a_batch_of_several_parts_arrives_whole(tmp_path: Path, postgres_url: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "seed.md").write_text("# Seed\n\nThe lamp was lit at dusk.\n")
    location = PostgresLocation(postgres_url, str(vault))
    Indexer(Config(vault=vault, db=location), StaticEmbedder()).run(fast=True)
    count = 2 * fts._STREAM_CHUNKS + 37  # two whole parts and a partial one
    rows = [(FIRST_ID + n, _columns(n)) for n in range(count)]
    db = open_index(location)
    assert isinstance(db, PostgresIndex)
    try:
        before = db.run("SELECT rows, tokens FROM fts_totals").fetchone()
        with db.transaction():
            fts.write_rows(db, rows)
        stored = {
            (term, int(cid), int(col), int(n), tuple(positions), int(tokens))
            for term, cid, col, n, positions, tokens in db.run(
                "SELECT term, chunk_id, col, n, positions, tokens FROM fts_terms "
                "WHERE chunk_id >= %s",
                (FIRST_ID,),
            )
        }
        postings = db.run(
            "SELECT count(*) FROM fts_terms WHERE chunk_id >= %s", (FIRST_ID,)
        ).fetchone()[0]
        docs = dict(
            db.run("SELECT chunk_id, tokens FROM fts_docs WHERE chunk_id >= %s", (FIRST_ID,))
        )
        after = db.run("SELECT rows, tokens FROM fts_totals").fetchone()
    finally:
        db.close()
    expected = _expected(rows)
    assert stored == expected
    assert postings == len(expected)  # nothing sent twice
    lengths = {cid: sum(len(fts.tokens(text)) for text in columns) for cid, columns in rows}
    assert docs == lengths
    assert (after[0] - before[0], after[1] - before[1]) == (count, sum(lengths.values()))
