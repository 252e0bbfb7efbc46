"""Reciprocal Rank Fusion with per-list weights and the tie-break rules of SPEC §6.

score = Σ weight_i / (k + rank_i), k = 60, ranks from 1. Ties: an item in more lists beats one in
fewer; then the lower summed rank; then the lower best single-list rank; then the id, so results are
deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank in each input list, None when absent


def fuse_rrf(
    rankings: Sequence[Sequence[int]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[Fused]:
    """Fuse ranked id lists (best first); lists with weight 0 still report ranks but add nothing."""
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    ranks: dict[int, list[int | None]] = {}
    for index, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, start=1):
            slot = ranks.setdefault(item, [None] * len(rankings))
            if slot[index] is None:
                slot[index] = rank
    fused = [
        Fused(
            id=item,
            score=sum(
                w / (k + r) for w, r in zip(weights, item_ranks, strict=True) if r is not None
            ),
            ranks=tuple(item_ranks),
        )
        for item, item_ranks in ranks.items()
    ]

    def order(entry: Fused) -> tuple[float, int, int, int, int]:
        present = [r for r, w in zip(entry.ranks, weights, strict=True) if r is not None and w > 0]
        return (-entry.score, -len(present), sum(present), min(present, default=0), entry.id)

    return sorted(fused, key=order)
