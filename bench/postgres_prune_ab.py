"""PostgreSQL keyword search: the pruned rankings against scoring every posting, per question.

Run: .venv/bin/python bench/postgres_prune_ab.py --keep DIR   (a folder bench/postgres_scale.py
     --keep DIR left: its server data and vault, the whole PowerShell corpus or --files N of it)
     .venv/bin/python bench/postgres_prune_ab.py --scifact   (BEIR SciFact in a new server)

Each question is ranked four times, alternating: as shipped (pruned from ``fts.PRUNE_FROM``
rows) and with every posting scored; the faster of each pair is kept and the two answers must be
the same chunks. Questions: the PowerShell bench's short ones and the first sentence (8 to 24
words) of 100 seeded-random notes, or SciFact's claims. Prints one line per kind of question and
per band of rows (the postings of the question's words, as a share of the index's chunks).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from pathlib import Path
from typing import Any

from corpora import powershell_corpus
from multilingual_quality import _first_sentence
from pg_temp_server import kept_server
from quality import build_vault, load_beir
from query_speed import QUERY_WORDS
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation
from vaultctx.index.postgres import bm25_topk, fts
from vaultctx.search.bm25 import bm25_search

ALWAYS_FULL = 10**12
BANDS = (0.0, 0.1, 0.2, 0.4, 0.8, 1.6, float("inf"))


def first_sentences(root: Path, count: int) -> list[str]:
    found = []
    for note in random.Random(5).sample(sorted(root.rglob("*.md")), count * 4):
        sentence = _first_sentence(note.read_text(encoding="utf-8", errors="replace"))
        if sentence and len(sentence.split()) >= 8:
            found.append(sentence)
        if len(found) == count:
            break
    return found


def compare(db: Any, questions: list[str]) -> list[tuple[int, float, float]]:
    """(rows, shipped ms, full ms) per question; the rows as ``fts.bm25`` counted them."""
    counted: dict[str, int] = {}
    counts = bm25_topk.counts

    def counting(*args: Any, **kwargs: Any) -> Any:
        found = counts(*args, **kwargs)
        counted["rows"] = 0 if found is None else sum(found[2].values())
        return found

    bm25_topk.counts = counting  # type: ignore[assignment]
    shipped = fts.PRUNE_FROM
    results = []
    try:
        for question in questions[:10]:
            bm25_search(db, question, 40)
        for question in questions:
            times: dict[int, list[float]] = {shipped: [], ALWAYS_FULL: []}
            answers = {}
            for prune in (shipped, ALWAYS_FULL) * 2:
                fts.PRUNE_FROM = prune
                started = time.perf_counter()
                answers[prune] = [chunk for chunk, _ in bm25_search(db, question, 40)]
                times[prune].append((time.perf_counter() - started) * 1000)
            assert answers[shipped] == answers[ALWAYS_FULL], question
            results.append((counted["rows"], min(times[shipped]), min(times[ALWAYS_FULL])))
    finally:
        fts.PRUNE_FROM = shipped
        bm25_topk.counts = counts  # type: ignore[assignment]
    return results


def report(kind: str, results: list[tuple[int, float, float]], chunks: int) -> None:
    def line(label: str, rows: list[tuple[int, float, float]]) -> None:
        shipped = statistics.median(r[1] for r in rows)
        full = statistics.median(r[2] for r in rows)
        faster = sum(r[2] < r[1] for r in rows)
        print(
            f"{kind:6} {label:14} n={len(rows):3}  shipped p50 {shipped:6.2f} ms  all postings "
            f"p50 {full:6.2f} ms  all postings faster for {faster}",
            flush=True,
        )

    line("all", results)
    for low, high in itertools.pairwise(BANDS):
        band = [r for r in results if low <= r[0] / chunks < high]
        if band:
            line(f"rows {low:.1f}-{high:.1f}x", band)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="a bench/postgres_scale.py --keep folder")
    parser.add_argument("--scifact", action="store_true", help="BEIR SciFact in a new server")
    args = parser.parse_args()
    with kept_server(args.keep, "vaultctx-prune-") as (work, server):
        if args.scifact:
            corpus, queries, _ = load_beir("beir-scifact")
            root = work / "vault"
            build_vault(corpus, root)
            kinds = {"claims": list(queries.values())}
        else:
            root = work / "vault" if (work / "vault").exists() else powershell_corpus()
            kinds = {"short": QUERY_WORDS, "long": first_sentences(root, 100)}
        vault = Vault(root, db=PostgresLocation(server.get_uri(), str(root.resolve())))
        if args.scifact:
            vault.index(fast=True)
        chunks = vault.status().chunks
        print(f"index: {chunks} chunks", flush=True)
        for kind, questions in kinds.items():
            report(kind, compare(vault.retriever().db, questions), chunks)
        vault.close()


if __name__ == "__main__":
    main()
