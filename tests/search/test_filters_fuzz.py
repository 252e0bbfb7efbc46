"""The filter language, fuzzed: any text a user or a model may type either parses or is refused
with a ``VaultctxError`` (message and fix), never any other exception."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from vaultctx.errors import VaultctxError
from vaultctx.search.filters import OPERATORS, Filters, parse_condition

# Text built from the pieces the grammar cares about, so the fuzzer reaches deep paths (typed
# values, dotted keys, quotes, operator runs) far more often than uniform text would.
PIECES = st.sampled_from(
    [
        *OPERATORS,
        *("=>", "=<", "<>", ">>=", "==", "!", " ", ".", '"', "'", "#", "true", "false"),
        *("2026-01-31", "T", "12:00", "Z", "+01:00", "-", "3.5", "7d", "status", "tags"),
        *("é", "\x00", "\n", "9" * 30),
    ]
)
# Numbers of any length: Python refuses to turn more than 4,300 digits into an int.
NUMBERS = st.tuples(
    st.sampled_from(["", "-", "+"]), st.integers(min_value=1, max_value=6000), st.booleans()
).map(lambda number: number[0] + "7" * number[1] + (".5" if number[2] else ""))
AGES = st.tuples(st.integers(min_value=0, max_value=10**30), st.sampled_from("hdwHDW")).map(
    lambda age: f"{age[0]}{age[1]}"
)
MOMENTS = st.datetimes().map(lambda moment: moment.isoformat()) | st.dates().map(str)
TEXT = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))
CONDITIONS = TEXT | st.tuples(TEXT, st.sampled_from(OPERATORS), NUMBERS | MOMENTS | TEXT).map(
    " ".join
)
TIMES = st.none() | TEXT | AGES | MOMENTS | st.dates() | st.datetimes()


def parses_or_refuses(make: Callable[[], object]) -> None:
    try:
        make()
    except VaultctxError as error:
        assert error.message and error.suggestion


@settings(max_examples=500, deadline=None)
@given(CONDITIONS)
@example("rating = " + "1" * 5000)  # past Python's limit for turning digits into an int
@example("rating => 5")
def test_any_condition_parses_or_is_refused(text: str) -> None:
    parses_or_refuses(lambda: parse_condition(text))


@settings(max_examples=300, deadline=None)
@given(
    folder=st.none() | TEXT,
    tags=st.lists(TEXT, max_size=3),
    since=TIMES,
    until=TIMES,
    where=st.lists(CONDITIONS, max_size=3),
)
@example(folder=None, tags=[], since="99999999999999999999d", until=None, where=[])
@example(folder=None, tags=[], since=None, until="9999-12-31", where=[])
@example(folder=None, tags=[], since="0001-01-01", until=dt.date.max, where=[])
def test_any_filters_parse_or_are_refused(
    folder: str | None,
    tags: list[str],
    since: str | dt.date | None,
    until: str | dt.date | None,
    where: list[str],
) -> None:
    parses_or_refuses(
        lambda: Filters(folder=folder, tags=tags, since=since, until=until, where=where)
    )
