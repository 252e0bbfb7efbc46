"""Small statistics shared by the latency benchmarks."""

from __future__ import annotations


def percentile(samples: list[float], share: float) -> float:
    """Nearest-rank percentile (share in 0–1) of the samples."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]
