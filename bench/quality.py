"""Retrieval quality on BEIR-format sets: nDCG@10, Recall@100, MRR@10 per ranker and for hybrid.

Run: .venv/bin/python bench/quality.py [--dataset NAME ...] [--limit-queries N] [--fast]
     [--db postgresql://...]
Each document becomes one note (title as front matter title) in a temporary vault, indexed by the
real indexer; queries go through the public API exactly as users' searches do, one result per note.
``--db URL`` indexes into that PostgreSQL database (one schema per dataset's vault) instead of the
cached SQLite file, to compare the two stores' figures.
Prints one line per (dataset, mode, metric).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from corpora import SHARED_DATA, dataset_index_dir
from vaultctx.api import Vault
from vaultctx.db_location import PostgresLocation

Qrels = dict[str, dict[str, int]]


def load_beir(name: str) -> tuple[dict[str, dict[str, str]], dict[str, str], Qrels]:
    root = SHARED_DATA / name
    corpus = {}
    with (root / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[str(doc["_id"])] = {"title": doc.get("title") or "", "text": doc["text"]}
    queries = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            query = json.loads(line)
            queries[str(query["_id"])] = query["text"]
    qrels: Qrels = {}
    with (root / "qrels" / "test.tsv").open(encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(qid, {})[did] = int(score)
    return corpus, {q: t for q, t in queries.items() if q in qrels}, qrels


def build_vault(corpus: dict[str, dict[str, str]], root: Path) -> dict[str, str]:
    """One note per document; returns note path → document id."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    for number, (doc_id, doc) in enumerate(corpus.items()):
        rel = f"docs/{number:06d}.md"
        title = doc["title"].replace('"', "'").replace("\\", "/").replace("\n", " ")
        front = f'---\ntitle: "{title}"\n---\n' if title else ""
        target, content = root / rel, f"{front}{doc['text']}\n"
        if not target.exists() or target.read_text(encoding="utf-8") != content:
            target.write_text(content, encoding="utf-8")
        paths[rel] = doc_id
    return paths


def ndcg_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def mrr_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    return next((1 / (i + 1) for i, d in enumerate(ranked[:k]) if d in relevant), 0.0)


def evaluate(
    top10: dict[str, list[str]], top100: dict[str, list[str]], qrels: Qrels
) -> dict[str, float]:
    """nDCG and MRR from the default top-10 search, recall from a deeper search."""
    n = len(top10)
    return {
        "ndcg@10": sum(ndcg_at(top10[q], qrels[q]) for q in top10) / n,
        "recall@100": sum(recall_at(top100[q], qrels[q]) for q in top100) / n,
        "mrr@10": sum(mrr_at(top10[q], qrels[q]) for q in top10) / n,
    }


def run_queries(
    search: Callable[[str], Any], queries: dict[str, str], paths: dict[str, str]
) -> dict[str, list[str]]:
    return {
        qid: [paths[r.file_path] for r in search(text).results] for qid, text in queries.items()
    }


MODES: dict[str, dict[str, Any]] = {
    "bm25": {"mode": "bm25"},
    "vector": {"mode": "vector"},
    "hybrid": {"mode": "hybrid"},
    # docs/reference.md#graph-search ranking. BEIR sets have no links, so this measures its fusion
    # (RRF, keyword weight 0.5, two keyword-only slots) against the default;
    # bench/linked_quality.py measures links.
    "hybrid+graph": {"mode": "hybrid", "graph": True},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", nargs="+", default=["beir-scifact", "ko-autorag-retrieval"])
    parser.add_argument("--limit-queries", type=int, default=0)
    parser.add_argument(
        "--fast", action="store_true", help="pass 1 only: vectors are the static engine's"
    )
    parser.add_argument("--db", help="a postgresql:// URL: index there instead of a SQLite file")
    args = parser.parse_args()
    for name in args.dataset:
        corpus, queries, qrels = load_beir(name)
        if args.limit_queries:
            queries = dict(list(queries.items())[: args.limit_queries])
        root = dataset_index_dir(name + ("-fast" if args.fast else ""))
        paths = build_vault(corpus, root / "vault")
        db: Path | PostgresLocation = root / "index.db"
        if args.db:
            db = PostgresLocation(args.db, str((root / "vault").resolve()))
        vault = Vault(root / "vault", db=db)
        started = time.perf_counter()
        report = vault.index(fast=args.fast)
        print(
            f"{name} index: {len(corpus)} docs, {report.chunks_written} chunks written, "
            f"{report.quality_embedded} pass-2 vectors in "
            f"{time.perf_counter() - started:.1f} s (cached index reused when unchanged)"
        )
        for label, options in MODES.items():
            runs = []
            for limit in (10, 100):

                def search(
                    text: str,
                    limit: int = limit,
                    options: dict[str, Any] = options,
                    vault: Vault = vault,
                ) -> Any:
                    return vault.search(text, limit=limit, max_tokens=10**9, notes=True, **options)

                runs.append(run_queries(search, queries, paths))
            scores = evaluate(runs[0], runs[1], qrels)
            for metric, value in scores.items():
                print(f"{name} {label} {metric}: {value:.4f}")
        vault.close()


if __name__ == "__main__":
    main()
