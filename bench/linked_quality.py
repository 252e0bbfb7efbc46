"""Graph RAG on a densely linked vault: the Obsidian Help vault (English), graph off and on.

Run: .venv/bin/python bench/linked_quality.py [--depths 0 1 2]
Indexes ../shared/data/obsidian-help/en (both passes; the database is cached under
$VAULTCTX_BENCH_CACHE, the vault is only read) and scores two question sets, one note per result:

- sanity: the 12 questions of tests/e2e/test_obsidian_help_sanity.py, written for the default
  search; hit@5 and MRR@10 of the expected note. A neutral set: nothing in it asks for links.
- link targets: built from the vault's own wiki-links, not by hand. For a sampled link M → N, the
  question is the line of M holding the link, with that link removed and other links reduced to
  their text; the answer is N. Favourable to link following by construction (M's own words are
  the question), so read it as the case the graph is meant for, not as a typical query.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from corpora import CACHE, REPO, SHARED_DATA
from vaultctx.api import Vault
from vaultctx.index.search_queries import chunk_notes
from vaultctx.search.graph import graph_ranking
from vaultctx.search.ranking_constants import VECTOR_TOP_K
from vaultctx.search.vector import vector_search
from vaultctx.vault.links import Link, LinkResolver
from vaultctx.vault.note import parse_note
from vaultctx.vault.scanner import read_vault_file, scan_vault

sys.path.insert(0, str(REPO))
from tests.e2e.test_obsidian_help_sanity import QUESTIONS

Question = tuple[str, str]  # (query, expected note path)
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_MARKUP = re.compile(r"[*_`>#|]+|^\s*[-+]\s+|^\s*\d+\.\s+")


def sanity_questions() -> list[Question]:
    return [tuple(getattr(q, "values", q)) for q in QUESTIONS]  # type: ignore[misc]


def link_target_questions(root: Path, count: int, seed: int = 7) -> list[Question]:
    files = scan_vault(root).files
    texts = {f.path: read_vault_file(f) for f in files}
    notes = [parse_note(path, text) for path, text in texts.items()]
    resolver = LinkResolver.from_notes((note.path, note.aliases) for note in notes)
    found: dict[str, str] = {}
    for note in notes:
        lines = texts[note.path].splitlines()
        for link in note.links:
            target = resolver.resolve(link.target, note.path) if link.target else None
            if link.kind != "wikilink" or target in (None, note.path):
                continue
            question = _without_link(lines[link.line - 1], link)
            if len(question.split()) >= 8:
                found.setdefault(question, str(target))
    pool = sorted(found.items())
    return random.Random(seed).sample(pool, min(count, len(pool)))


def _without_link(line: str, link: Link) -> str:
    def replace(match: re.Match[str]) -> str:
        destination, _, alias = match.group(1).partition("|")
        if destination.split("#")[0].strip() == link.target:
            return ""
        return alias or destination.split("#")[0].split("/")[-1]

    text = _MARKUP.sub(" ", _WIKILINK.sub(replace, line))
    return " ".join(text.split())


def ranked_notes(search: Callable[[str], Any], query: str) -> list[str]:
    return [result.file_path for result in search(query).results]


def score(
    search: Callable[[str], Any], questions: Sequence[Question]
) -> tuple[float, float, float]:
    """hit@5, MRR@10 and the median query time in ms."""
    hits, reciprocal, times = 0, 0.0, []
    for query, expected in questions:
        started = time.perf_counter()
        ranked = ranked_notes(search, query)
        times.append((time.perf_counter() - started) * 1000)
        hits += expected in ranked[:5]
        if expected in ranked[:10]:
            reciprocal += 1 / (ranked.index(expected) + 1)
    n = len(questions)
    return hits / n, reciprocal / n, statistics.median(times)


def candidate_recall(vault: Vault, questions: Sequence[Question], depth: int) -> float:
    """Share of answers anywhere in the graph ranking (seeds and neighbours), before fusion:
    what the expansion finds, whether or not the ranking then shows it in the top 10."""
    retriever = vault.retriever()
    source = retriever.vector_sources()[0]
    graph = retriever.links.get()
    found = 0
    for query, expected in questions:
        vector = source.embed_query(query)
        hits = vector_search(retriever.db, source.table, vector, VECTOR_TOP_K)
        ranking = graph_ranking(retriever.db, graph, source.table, vector, hits, depth)
        note_of = chunk_notes(retriever.db, [hit.chunk_id for hit in ranking])
        found += expected in {graph.notes[note_of[hit.chunk_id]].path for hit in ranking}
    return found / len(questions)


def help_vault_and_sets(link_questions: int) -> tuple[Vault, dict[str, list[Question]]]:
    """The indexed Obsidian Help vault (English, both passes, cached) and its question sets."""
    root = SHARED_DATA / "obsidian-help" / "en"
    vault = Vault(root, db=CACHE / "graph-obsidian-help" / "index.db")
    vault.index()
    sets = {
        "sanity": sanity_questions(),
        "link-targets": link_target_questions(root, link_questions),
    }
    return vault, sets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depths", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--link-questions", type=int, default=60)
    args = parser.parse_args()
    vault, sets = help_vault_and_sets(args.link_questions)
    configs: dict[str, dict[str, Any]] = {"graph off": {}}
    configs |= {f"graph depth {d}": {"graph": True, "depth": d} for d in args.depths}
    for label, options in configs.items():

        def search(query: str, options: dict[str, Any] = options) -> Any:
            return vault.search(query, limit=10, max_tokens=10**9, notes=True, **options)

        search("warm up")
        for name, questions in sets.items():
            hit5, mrr, p50 = score(search, questions)
            print(
                f"obsidian-help {name} ({len(questions)} q) {label}: hit@5 {hit5:.4f}, "
                f"MRR@10 {mrr:.4f}, p50 {p50:.1f} ms"
            )
    for depth in args.depths:
        share = candidate_recall(vault, sets["link-targets"], depth)
        print(
            f"obsidian-help link-targets depth {depth}: answer among graph candidates {share:.4f}"
        )
    vault.close()


if __name__ == "__main__":
    main()
