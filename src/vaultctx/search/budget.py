"""Fit ranked texts into a token budget (4 characters per token, greedy in rank order)."""

from __future__ import annotations

from collections.abc import Sequence

CHARS_PER_TOKEN = 4
ELLIPSIS = "…"


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def fit_to_budget(texts: Sequence[str], max_tokens: int) -> list[str]:
    """Texts kept in order until the budget is spent.

    A text that does not fit whole is cut (ending in …) rather than dropped when at least a
    useful piece fits, so the best-ranked result is never lost to its own length.
    """
    budget = max_tokens * CHARS_PER_TOKEN
    kept: list[str] = []
    for text in texts:
        if budget <= 0:
            break
        if len(text) <= budget:
            kept.append(text)
            budget -= len(text)
            continue
        if budget >= 200 or not kept:
            kept.append(_truncate(text, budget))
        break
    return kept


def _truncate(text: str, limit: int) -> str:
    """Cut at the last whitespace before the limit so words stay whole."""
    if limit <= len(ELLIPSIS):
        return ELLIPSIS[: max(limit, 0)]
    cut = text[: limit - len(ELLIPSIS)]
    space = cut.rfind(" ")
    if space > len(cut) // 2:
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS
