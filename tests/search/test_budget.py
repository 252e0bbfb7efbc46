from __future__ import annotations

from vaultctx.search.budget import fit_to_budget


def test_greedy_in_order() -> None:
    assert fit_to_budget(["a" * 40, "b" * 40, "c" * 40], max_tokens=20) == ["a" * 40, "b" * 40]


def test_long_first_result_truncated_not_dropped() -> None:
    kept = fit_to_budget(["word " * 1000], max_tokens=100)
    assert len(kept) == 1
    assert kept[0].endswith("…")
    assert len(kept[0]) <= 400


def test_remaining_budget_truncates_when_useful() -> None:
    kept = fit_to_budget(["x" * 100, "word " * 500], max_tokens=200)
    assert len(kept) == 2 and kept[1].endswith("…")
    assert sum(len(t) for t in kept) <= 800


def test_tiny_remainder_stops() -> None:
    assert fit_to_budget(["x" * 790, "y" * 500], max_tokens=200) == ["x" * 790]
