"""Fusing ranked lists: weighted RRF and score fusion (the measured default).

RRF: score = Σ weight_i / (k + rank_i), k = 60, ranks from 1.
Score fusion: score = Σ weight_i · minmax_i(score), each list's scores scaled to 0–1 within the
list. It uses how far apart the hits are, not only their order, which measured better on every
benchmark (docs/benchmarks.md, "Fusion"): a confident BM25 hit is not diluted by a vector list's
flat top 30.
Ties, for both: an item in more lists beats one in fewer; then the lower summed rank; then the
lower best single-list rank; then the id, so results are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vaultctx.search.ranking_constants import RRF_K


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

    return _ordered(fused, weights)


def fuse_scores(
    scored: Sequence[Sequence[tuple[int, float]]],
    weights: Sequence[float] | None = None,
    bounds: Sequence[tuple[float, float] | None] | None = None,
) -> list[Fused]:
    """Weighted sum of min-max normalised scores; each list is (id, score) best first.

    Scores must grow with relevance (negate FTS5's bm25()). A list whose scores are all equal
    gives each of its items 1.0. A list's ``bounds`` (low, high), when given, replace its own
    minimum and maximum: a list cut down to some of its hits keeps the scale of all of them.
    """
    if weights is None:
        weights = [1.0] * len(scored)
    if len(weights) != len(scored):
        raise ValueError("one weight per ranking")
    totals: dict[int, float] = {}
    ranks: dict[int, list[int | None]] = {}
    for index, (hits, weight) in enumerate(zip(scored, weights, strict=True)):
        if not hits:
            continue
        values = [score for _, score in hits]
        given = bounds[index] if bounds is not None else None
        low, high = given if given is not None else (min(values), max(values))
        for rank, (item, score) in enumerate(hits, start=1):
            slot = ranks.setdefault(item, [None] * len(scored))
            if slot[index] is not None:
                continue
            slot[index] = rank
            norm = (score - low) / (high - low) if high > low else 1.0
            if given is not None:
                norm = min(1.0, max(0.0, norm))
            totals[item] = totals.get(item, 0.0) + weight * norm
    fused = [Fused(item, totals[item], tuple(item_ranks)) for item, item_ranks in ranks.items()]
    return _ordered(fused, weights)


def _ordered(fused: list[Fused], weights: Sequence[float]) -> list[Fused]:
    def order(entry: Fused) -> tuple[float, int, int, int, int]:
        present = [r for r, w in zip(entry.ranks, weights, strict=True) if r is not None and w > 0]
        return (-entry.score, -len(present), sum(present), min(present, default=0), entry.id)

    return sorted(fused, key=order)
