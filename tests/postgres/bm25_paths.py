"""The ways PostgreSQL finds BM25's top k, switched for a test: every posting scored (the
reference), and a spy on one pruned path's answers (None: it declined)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from vaultctx.index.postgres import bm25_blocks, bm25_topk, fts


def every_posting_scored(
    db: Any, match: str, limit: int, weights: tuple[float, float, float], files: Any = None
) -> Any:
    """Neither MaxScore nor the blocks."""
    top, blocks = bm25_topk.top, bm25_blocks.top
    declines: Any = lambda *args, **kwargs: None  # noqa: E731
    bm25_topk.top = bm25_blocks.top = declines
    try:
        return fts.bm25(db, match, limit, weights, files)
    finally:
        bm25_topk.top, bm25_blocks.top = top, blocks


def spy(monkeypatch: pytest.MonkeyPatch, path: ModuleType) -> list[Any]:
    """``path.top``'s answers, in order; tried whatever the query's size (small vaults' questions
    are otherwise ranked in full at once: ``fts.PRUNE_FROM``)."""
    monkeypatch.setattr(fts, "PRUNE_FROM", 0)
    answers: list[Any] = []
    top = path.top

    def spied(*args: Any, **kwargs: Any) -> Any:
        answers.append(top(*args, **kwargs))
        return answers[-1]

    monkeypatch.setattr(path, "top", spied)
    return answers
