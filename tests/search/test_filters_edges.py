"""The filter language's comparisons at their edges (search/filters.py), each operator and kind
of value the broader tests leave loose: ``<=`` at equality, text that is no boolean, ``false``
written as text, ``~`` over ``false``, times written with ``Z``, and a time with a zone compared
with one without."""

from __future__ import annotations

import pytest

from vaultctx.search.filters import parse_condition


def holds(condition: str, stored: object) -> bool:
    return parse_condition(condition).holds(stored)


@pytest.mark.parametrize(
    ("condition", "stored", "expected"),
    [
        ("rating <= 10", 10, True),
        ("rating <= 10", 9, True),
        ("rating <= 10", 11, False),
        ("rating <= 3", 4, False),
        ("due <= 2026-01-31", "2026-01-31", True),
        ("due <= 2026-01-31", "2026-02-01", False),
        ("title <= b", "B", True),
        ("title <= b", "c", False),
    ],
)
def test_at_most_holds_at_equality_and_below_only(
    condition: str, stored: object, expected: bool
) -> None:
    assert holds(condition, stored) is expected


@pytest.mark.parametrize("stored", ["maybe", 3, 0, 1.5, ["maybe"]])
def test_a_value_that_is_no_boolean_matches_neither_true_nor_false(stored: object) -> None:
    for written in ("true", "false"):
        assert not holds(f"draft = {written}", stored)
        assert holds(f"draft != {written}", stored)


@pytest.mark.parametrize("stored", [False, "false", "False", " FALSE "])
def test_false_matches_yaml_false_and_its_text(stored: object) -> None:
    assert holds("draft = false", stored)
    assert not holds("draft = true", stored)
    assert holds("draft != true", stored)


def test_contains_reads_booleans_as_yaml_spells_them() -> None:
    assert holds("draft ~ fal", False) and not holds("draft ~ tru", False)
    assert holds("draft ~ tru", True) and not holds("draft ~ fal", True)
    assert holds('flag = "false"', False) and holds('flag = "true"', True)
    assert not holds('flag = "true"', False)


def test_a_time_written_with_z_is_utc() -> None:
    assert holds("at = 2026-01-31T12:00:00+00:00", "2026-01-31T12:00:00Z")
    assert holds("at < 2026-01-31T12:00:01+00:00", "2026-01-31T12:00:00Z")
    assert not holds("at > 2026-01-31T12:00:00+00:00", "2026-01-31T12:00:00Z")


@pytest.mark.parametrize(
    ("condition", "stored"),
    [
        ("at < 2026-01-31T12:00:00+00:00", "2026-01-29T12:00:00"),
        ("at > 2026-01-31T12:00:00", "2026-02-02T12:00:00+00:00"),
        ("at < 2026-01-31T12:00:00+00:00", "2026-01-29"),
    ],
)
def test_a_time_without_a_zone_compares_with_one_with_a_zone_as_local_time(
    condition: str, stored: str
) -> None:
    """Two days apart: whatever the local zone, the order is the same."""
    assert holds(condition, stored)
    flipped = condition.replace("<", ">") if "<" in condition else condition.replace(">", "<")
    assert not holds(flipped, stored)
