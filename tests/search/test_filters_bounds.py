"""The ends of what the filter language can say (search/filters.py): times at the edges of the
range ``files.mtime_ns`` counts (September 1677 to April 2262), ages in each unit and too old for
any date, the largest date, and numbers too long to be whole numbers."""

from __future__ import annotations

import datetime as dt

import pytest

from vaultctx.search.filters import Filters, parse_condition, parse_time_bound

LIMIT = 2**63 - 1


def ns(text: str | dt.date, *, end_of_day: bool = False) -> int:
    bound = parse_time_bound("modified since", text, end_of_day=end_of_day)
    assert bound is not None
    return bound.ns


def local_ns(moment: dt.datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1677-12-01", -LIMIT),  # in range, but a year before the first whole one: clamped
        ("1678-01-01", local_ns(dt.datetime(1678, 1, 1))),
        ("2261-12-31", local_ns(dt.datetime(2261, 12, 31))),
        ("2262-01-01", LIMIT),  # in range until April, but past the last whole year: clamped
        ("0001-01-01", -LIMIT),
        ("9999-12-31", LIMIT),
    ],
)
def test_a_date_beyond_the_whole_years_mtime_counts_is_clamped(text: str, expected: int) -> None:
    assert ns(text) == expected


def test_the_last_day_there_is_ends_at_the_limit() -> None:
    assert ns(dt.date.max, end_of_day=True) == LIMIT
    assert ns("9999-12-31", end_of_day=True) == LIMIT
    assert ns(dt.date(2024, 5, 1), end_of_day=True) == local_ns(dt.datetime(2024, 5, 2))
    assert ns(dt.date(2024, 5, 1)) == local_ns(dt.datetime(2024, 5, 1))
    moment = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    bound = parse_time_bound("modified until", moment, end_of_day=True)
    assert bound is not None and bound.text == "2024-01-01T00:00:00+00:00"
    assert bound.ns == 1_704_067_200 * 10**9, "a date-time is that instant, whatever end_of_day"


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("5h", dt.timedelta(hours=5)),
        ("3d", dt.timedelta(days=3)),
        ("3D", dt.timedelta(days=3)),
        ("2 w", dt.timedelta(weeks=2)),
        ("0h", dt.timedelta(0)),
    ],
)
def test_an_age_counts_back_from_now_in_its_unit(text: str, delta: dt.timedelta) -> None:
    expected = local_ns(dt.datetime.now() - delta)
    assert abs(ns(text) - expected) < 60 * 10**9
    assert parse_time_bound("modified since", f"  {text} ", end_of_day=False) is not None


@pytest.mark.parametrize("text", ["9999999w", "99999999999999999999d", "4000000d"])
def test_an_age_older_than_any_date_is_before_every_file(text: str) -> None:
    assert ns(text) == -LIMIT


@pytest.mark.parametrize("digits", [4000, 4001])
def test_a_number_too_long_for_a_whole_number_compares_as_a_float(digits: int) -> None:
    value = parse_condition("n = " + "1" * digits).value
    assert type(value) is (int if digits <= 4000 else float)


def test_since_and_until_are_kept_as_asked_or_dropped_when_empty() -> None:
    day = dt.date(2024, 5, 1)
    built = Filters(since=day, until="2024-06-01")
    assert (built.since, built.until) == (day, "2024-06-01")
    assert built.since_bound is not None and built.since_bound.text == "2024-05-01"
    empty = Filters(since=" ", until="")
    assert (empty.since, empty.until, empty.since_bound, empty.until_bound) == (None,) * 4
    assert Filters(since="2024-05-01", until="2024-05-01").describe() == {
        "modified_since": "2024-05-01",
        "modified_until": "2024-05-01",
    }
