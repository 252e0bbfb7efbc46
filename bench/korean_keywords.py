"""Korean keyword search (BM25) on Korean questions over Korean notes: nDCG@10 per set.

Run: VAULTCTX_SHARED_DATA=DATA .venv/bin/python bench/korean_keywords.py [--sets NAME ...]
     [--misses SET]

What a change to how Korean is analysed (text/korean.py, text/lexical.py) does, measured on more
than the set it was tuned on. Pass 1 only (a Korean question over Korean notes is ranked by BM25
alone: search/language_routing.py), one result per note, ``mode="bm25"``. Indexes are kept in
$VAULTCTX_BENCH_CACHE/korean-keywords; one analysed another way is re-analysed on open by the
indexer itself. To compare two trees, run each with its own ``PYTHONPATH=TREE/src:bench``.

- ``ko-autorag``: its 114 questions (the issue's target set).
- ``ko-autorag-answers``: the same pages asked with each question's reference answer instead,
  written in other words and at other length than the question.
- ``ohs-ko``: the Korean Obsidian Help vault (173 notes); each note asked with its first prose
  sentence, as bench/multilingual_quality.py builds its questions.
- ``tldr-ko``: 600 Korean tldr pages (multilingual_quality.py's seeded sample); each of 100 asked
  with its one-line description. Many pages describe similar commands.

The last two take their questions from the notes' own text, so they show harm more than gain.
``--misses SET`` prints that set's questions whose answer is not ranked first.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from corpora import CACHE, SHARED_DATA
from multilingual_quality import DevSet, _description, _first_sentence, _permalinks, _tldr_pairs
from quality import build_vault, load_beir, ndcg_at
from vaultctx.api import Vault


def autorag_sets() -> list[DevSet]:
    name = "ko-autorag-retrieval"
    corpus, queries, qrels = load_beir(name)
    folder = CACHE / "korean-keywords" / "ko-autorag-vault"
    by_doc = {doc: path for path, doc in build_vault(corpus, folder).items()}
    note_qrels = {q: {by_doc[d]: g for d, g in rel.items()} for q, rel in qrels.items()}
    answers = {}
    with (SHARED_DATA / name / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            query = json.loads(line)
            if query["_id"] in queries:
                answers[query["_id"]] = query["metadata"]["generation_gt"][0]
    return [
        DevSet("ko-autorag", folder, queries, note_qrels),
        DevSet("ko-autorag-answers", folder, answers, note_qrels),
    ]


def ohs_ko_sets() -> list[DevSet]:
    root = SHARED_DATA / "obsidian-help" / "ko"
    queries, qrels = {}, {}
    for link, path in sorted(_permalinks(root).items()):
        question = _first_sentence((root / path).read_text(encoding="utf-8"))
        if question:
            queries[link], qrels[link] = question, {path: 1}
    return [DevSet("ohs-ko", root, queries, qrels)]


def tldr_ko_sets() -> list[DevSet]:
    pairs = _tldr_pairs()
    names = sorted(pairs)
    random.Random(25).shuffle(names)  # the sample of multilingual_quality.tldr_sets
    folder = CACHE / "korean-keywords" / "tldr-ko-vault"
    folder.mkdir(parents=True, exist_ok=True)
    for page in names[:600]:
        note = folder / page
        if not note.exists():
            note.write_text(pairs[page][1], encoding="utf-8")
    queries, qrels = {}, {}
    for page in names[:100]:
        question = _description(pairs[page][1])
        if question:
            queries[page], qrels[page] = question, {page: 1}
    return [DevSet("tldr-ko", folder, queries, qrels)]


LOADERS: dict[str, Callable[[], list[DevSet]]] = {
    "autorag": autorag_sets,
    "ohs": ohs_ko_sets,
    "tldr": tldr_ko_sets,
}


def ranked(vault: Vault, text: str) -> list[str]:
    results = vault.search(text, limit=10, max_tokens=10**9, notes=True, mode="bm25").results
    return [r.file_path for r in results]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="+", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--misses", default="", help="a set name: print its questions not at 1")
    args = parser.parse_args()
    for loader in args.sets:
        for dev in LOADERS[loader]():
            db = CACHE / "korean-keywords" / f"{dev.vault.name}.db"
            vault = Vault(dev.vault, db=Path(db))
            started = time.perf_counter()
            vault.index(fast=True)
            took = time.perf_counter() - started
            scores, first = [], 0
            for qid, text in dev.queries.items():
                found = ranked(vault, text)
                scores.append(ndcg_at(found, dev.qrels[qid]))
                first += bool(found) and found[0] in dev.qrels[qid]
                if dev.name == args.misses and (not found or found[0] not in dev.qrels[qid]):
                    rank = next((i + 1 for i, p in enumerate(found) if p in dev.qrels[qid]), None)
                    print(f"  {qid} rank {rank}: {text[:100]}")
            print(
                f"{dev.name}: {len(scores)} questions, nDCG@10 {sum(scores) / len(scores):.4f}, "
                f"answer first {first} (index {took:.1f} s)",
                flush=True,
            )
            vault.close()


if __name__ == "__main__":
    main()
