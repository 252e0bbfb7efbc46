"""RFC 3339 allows a UTC time to end in a lower-case ``z``: a ``--since`` bound, a condition's
value and a note's stored value read it as UTC, exactly as the upper-case ``Z``."""

from __future__ import annotations

import datetime as dt

from vaultctx.search.filters import parse_condition, parse_time_bound

NOON_UTC = dt.datetime(2026, 1, 31, 12, tzinfo=dt.timezone.utc)


def test_a_time_bound_ending_in_z_is_utc() -> None:
    lower = parse_time_bound("modified since", "2026-01-31T12:00z", end_of_day=False)
    upper = parse_time_bound("modified since", "2026-01-31T12:00Z", end_of_day=False)
    assert lower is not None and upper is not None
    assert lower.ns == upper.ns == int(NOON_UTC.timestamp()) * 1_000_000_000


def test_a_conditions_value_ending_in_z_is_utc() -> None:
    assert parse_condition("at > 2026-01-31T12:00z").value == NOON_UTC


def test_a_stored_value_ending_in_z_is_compared_as_utc() -> None:
    condition = parse_condition("at = 2026-01-31T12:00:00+00:00")
    assert condition.holds("2026-01-31T12:00:00z")
    assert not parse_condition("at > 2026-01-31T12:00:00+00:00").holds("2026-01-31T12:00:00z")
