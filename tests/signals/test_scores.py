"""The composite formula and the threshold, exactly as docs/signals.md states them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultctx.signals.scores import THRESHOLD, WEIGHTS, Scores, clamp, composite

score = st.integers(min_value=0, max_value=1000).map(lambda n: n / 1000)


def scores(relevance: float, actionability: float, depth: float, authority: float) -> Scores:
    return Scores(relevance, actionability, depth, authority, domain="data", scored_by="test")


def test_the_weights_are_the_documented_ones() -> None:
    assert WEIGHTS == {"relevance": 0.35, "actionability": 0.25, "depth": 0.25, "authority": 0.15}
    assert sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert THRESHOLD == 0.55


def test_composite_is_the_weighted_sum() -> None:
    assert composite(1, 0, 0, 0) == 0.35
    assert composite(0, 1, 0, 0) == 0.25
    assert composite(0, 0, 1, 0) == 0.25
    assert composite(0, 0, 0, 1) == 0.15
    assert composite(0.8, 0.4, 0.6, 0.2) == 0.28 + 0.1 + 0.15 + 0.03


@pytest.mark.parametrize(
    ("values", "filed"),
    [
        ((1.0, 0.4, 0.4, 0.0), True),  # 0.35 + 0.10 + 0.10 = 0.55 exactly
        ((0.5, 0.6, 0.6, 0.5), True),  # 0.175 + 0.15 + 0.15 + 0.075 = 0.55 exactly
        ((1.0, 0.4, 0.396, 0.0), False),  # 0.549
        ((0.5, 0.6, 0.6, 0.499), False),  # 0.54985: not rounded up to 0.55
        ((1.0, 1.0, 1.0, 1.0), True),
        ((0.0, 0.0, 0.0, 0.0), False),
    ],
)
def test_the_threshold_edge(values: tuple[float, float, float, float], filed: bool) -> None:
    assert scores(*values).filed is filed


def test_exactly_055_is_stored_as_055() -> None:
    result = scores(1.0, 0.4, 0.4, 0.0)
    assert result.composite == 0.55
    assert result.as_dict()["composite"] == 0.55


@given(score, score, score, score)
def test_composite_stays_in_range_and_files_only_at_the_threshold(
    r: float, a: float, d: float, t: float
) -> None:
    value = composite(r, a, d, t)
    assert 0.0 <= value <= 1.0
    exact = 0.35 * r + 0.25 * a + 0.25 * d + 0.15 * t
    assert value == pytest.approx(exact, abs=1e-9)
    assert scores(r, a, d, t).filed is (value >= 0.55)


@given(score, score, score, score, score)
def test_a_higher_score_never_lowers_the_composite(
    r: float, a: float, d: float, t: float, bump: float
) -> None:
    assert composite(min(1.0, r + bump), a, d, t) >= composite(r, a, d, t)


def test_clamp() -> None:
    assert clamp(-0.2) == 0.0
    assert clamp(1.7) == 1.0
    assert clamp(0.12345) == 0.123
