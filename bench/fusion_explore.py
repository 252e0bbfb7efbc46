"""Compare fusion rules offline on one index: the evidence behind the default weights.

Run: .venv/bin/python bench/fusion_explore.py [--dataset beir-scifact]
Indexes the dataset once (both passes; cached under $VAULTCTX_BENCH_CACHE), collects each ranker's
top-100 notes per query, then scores fusion rules on the same lists. One line per rule and metric.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from corpora import dataset_index_dir
from quality import build_vault, load_beir, mrr_at, ndcg_at
from vaultctx.api import Vault
from vaultctx.search.bm25 import bm25_search
from vaultctx.search.fusion import fuse_rrf
from vaultctx.search.vector import vector_search

Ranking = list[tuple[str, float]]  # (doc id, score), best first
DEPTH = 30


def _to_docs(hits: list[tuple[int, float]], chunk_doc: dict[int, str]) -> Ranking:
    seen: dict[str, float] = {}
    for chunk_id, score in hits:
        doc = chunk_doc[chunk_id]
        if doc not in seen:
            seen[doc] = score
    return list(seen.items())


def collect(
    vault: Vault, queries: dict[str, str], paths: dict[str, str]
) -> dict[str, dict[str, Ranking]]:
    retriever = vault.retriever()
    db = retriever.db
    chunk_doc = {
        int(cid): paths[str(path)]
        for cid, path in db.execute(
            "SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id"
        )
    }
    static, quality = retriever.static, retriever.quality
    lists: dict[str, dict[str, Ranking]] = {"bm25": {}, "static": {}, "quality": {}}
    for qid, text in queries.items():
        lists["bm25"][qid] = _to_docs([(c, -s) for c, s in bm25_search(db, text, DEPTH)], chunk_doc)
        if static is not None:
            lists["static"][qid] = _to_docs(
                vector_search(db, static.table, static.embed_query(text), DEPTH), chunk_doc
            )
        if quality is not None:
            lists["quality"][qid] = _to_docs(
                vector_search(db, quality.table, quality.embed_query(text), DEPTH), chunk_doc
            )
    return lists


def rrf_rule(names: list[str], weights: list[float]) -> Callable[[dict[str, Ranking]], list[str]]:
    def rule(per_query: dict[str, Ranking]) -> list[str]:
        docs = sorted({d for n in names for d, _ in per_query[n]})
        index = {d: i for i, d in enumerate(docs)}
        fused = fuse_rrf([[index[d] for d, _ in per_query[n]] for n in names], weights)
        return [docs[f.id] for f in fused if f.score > 0]

    return rule


def minmax_rule(
    names: list[str], weights: list[float]
) -> Callable[[dict[str, Ranking]], list[str]]:
    """Convex combination of min-max normalised scores (a score-aware alternative to RRF)."""

    def rule(per_query: dict[str, Ranking]) -> list[str]:
        total: dict[str, float] = {}
        for name, weight in zip(names, weights, strict=True):
            ranking = per_query[name]
            if not ranking:
                continue
            scores = [s for _, s in ranking]
            low, high = min(scores), max(scores)
            for doc, score in ranking:
                norm = (score - low) / (high - low) if high > low else 1.0
                total[doc] = total.get(doc, 0.0) + weight * norm
        return sorted(total, key=lambda d: -total[d])

    return rule


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="beir-scifact")
    args = parser.parse_args()
    corpus, queries, qrels = load_beir(args.dataset)
    root = dataset_index_dir(args.dataset)
    vault_dir = root / "vault"
    paths = build_vault(corpus, vault_dir)
    vault = Vault(vault_dir, db=root / "index.db")
    vault.index()
    lists = collect(vault, queries, paths)
    rules: dict[str, Callable[[dict[str, Ranking]], list[str]]] = {
        "bm25": lambda q: [d for d, _ in q["bm25"]],
        "static": lambda q: [d for d, _ in q["static"]],
        "quality": lambda q: [d for d, _ in q["quality"]],
    }
    for w in (1.0, 0.5, 0.3, 0.2, 0.1):
        rules[f"rrf bm25+static w={w}"] = rrf_rule(["bm25", "static"], [1.0, w])
    for w in (1.0, 0.8, 0.6, 1.2, 1.5):
        rules[f"rrf bm25+quality w={w}"] = rrf_rule(["bm25", "quality"], [1.0, w])
    for ws in (0.5, 0.2):
        rules[f"rrf bm25+static({ws})+quality"] = rrf_rule(
            ["bm25", "static", "quality"], [1.0, ws, 1.0]
        )
    rules["score bm25+static+quality (1, 0.43, 1)"] = minmax_rule(
        ["bm25", "static", "quality"], [1.0, 0.43, 1.0]
    )
    for a in (0.3, 0.5, 0.6, 0.7, 0.8):
        rules[f"minmax bm25+quality a={a}"] = minmax_rule(["bm25", "quality"], [a, 1 - a])
        rules[f"minmax bm25+static a={a}"] = minmax_rule(["bm25", "static"], [a, 1 - a])
    for label, rule in rules.items():
        per_query = {qid: {n: lists[n].get(qid, []) for n in lists} for qid in queries}
        ranked = {qid: rule(per_query[qid]) for qid in queries}
        ndcg = sum(ndcg_at(ranked[q], qrels[q]) for q in queries) / len(queries)
        mrr = sum(mrr_at(ranked[q], qrels[q]) for q in queries) / len(queries)
        print(f"{args.dataset} {label}: ndcg@10 {ndcg:.4f} mrr@10 {mrr:.4f}")
    vault.close()


if __name__ == "__main__":
    main()
