"""Where the Obsidian Help sanity questions find their expected note, not only whether.

Run: PYTHONPATH=src:bench .venv/bin/python bench/sanity_ranks.py
The questions and expected notes are tests/e2e/test_obsidian_help_sanity.py's; the search is the
same (hybrid, one result per note, both passes). Prints each question's rank of the expected note
(– beyond 10), how many are in the top 5 (what the test asserts) and the MRR@10.
"""

from __future__ import annotations

import sys

from corpora import REPO, SHARED_DATA, dataset_index_dir
from vaultctx.api import Vault

sys.path.insert(0, str(REPO))
from tests.e2e.test_obsidian_help_sanity import QUESTIONS


def main() -> None:
    vault = Vault(
        SHARED_DATA / "obsidian-help" / "en", db=dataset_index_dir("obsidian-help-en") / "index.db"
    )
    vault.index()
    ranks: list[int | None] = []
    for case in QUESTIONS:
        question, expected = getattr(case, "values", case)[:2]
        paths = [r.file_path for r in vault.search(str(question), limit=10, notes=True).results]
        rank = paths.index(expected) + 1 if expected in paths else None
        ranks.append(rank)
        print(f"{rank or '–':>2}  {question}")
    top5 = sum(1 for rank in ranks if rank is not None and rank <= 5)
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    print(f"in the top 5: {top5} of {len(ranks)}; MRR@10 {mrr:.3f}")


if __name__ == "__main__":
    main()
