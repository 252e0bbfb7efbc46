"""Graph RAG in chat: does the chat's context gain from the notes linked to its passages?

Run: PYTHONPATH=src:bench .venv/bin/python bench/chat_graph_quality.py [--budgets 3000 100000]
On the Obsidian Help vault (English; index cached as bench/linked_quality.py's), the chat's own
retrieval (``agent.retrieval.retrieve``) with and without ``graph``, for the sanity questions and
the link-target questions of bench/linked_quality.py. Per budget (3,000 tokens is the default
``context_tokens``) it prints: the share of questions whose answer note is in the passages sent,
the MRR of the answer over the passages' order, the share whose hybrid passages came first
unchanged, and the linked passages sent on average.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from linked_quality import Question, help_vault_and_sets
from vaultctx.agent.retrieval import Retrieved, retrieve
from vaultctx.api import Vault


def _note(citation: str) -> str:
    return citation.partition("#")[0]


def score(vault: Vault, questions: Sequence[Question], budget: int) -> dict[str, float]:
    found = {False: 0, True: 0}
    reciprocal = {False: 0.0, True: 0.0}
    prefix_kept = linked_sent = 0
    for query, expected in questions:
        runs: dict[bool, Retrieved] = {}
        for graph in (False, True):
            runs[graph] = retrieve(vault, [query], max_tokens=budget, graph=graph)
            notes = [_note(passage.citation) for passage in runs[graph].passages]
            if expected in notes:
                found[graph] += 1
                reciprocal[graph] += 1 / (notes.index(expected) + 1)
        plain = [p.citation for p in runs[False].passages]
        with_links = [p.citation for p in runs[True].passages]
        prefix_kept += with_links[: len(plain)] == plain
        linked_sent += len(with_links) - len(plain)
    n = len(questions)
    return {
        "answer in context, off": found[False] / n,
        "answer in context, graph": found[True] / n,
        "MRR, off": reciprocal[False] / n,
        "MRR, graph": reciprocal[True] / n,
        "hybrid passages unchanged": prefix_kept / n,
        "linked passages sent (mean)": linked_sent / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budgets", type=int, nargs="+", default=[3000, 100_000])
    parser.add_argument("--link-questions", type=int, default=60)
    args = parser.parse_args()
    vault, sets = help_vault_and_sets(args.link_questions)
    for budget in args.budgets:
        for name, questions in sets.items():
            label = f"obsidian-help {name} ({len(questions)} q) budget {budget}"
            for metric, value in score(vault, questions, budget).items():
                print(f"{label}: {metric} {value:.4f}")
    vault.close()


if __name__ == "__main__":
    main()
