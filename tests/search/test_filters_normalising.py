"""How a filter keeps what was asked for (search/filters.py): a tag loses only its leading ``#``
and trailing ``/`` (never letters that happen to be at its ends), a folder of ``.`` or ``/`` is
the whole vault, each field is normalised, ``describe`` names each active part, a range that ends
where it starts is refused, and a condition's value is read as written."""

from __future__ import annotations

import datetime as dt

import pytest

from vaultctx.search.filters import Filters, InvalidFilterError, parse_condition, parse_time_bound


@pytest.mark.parametrize(
    ("written", "kept"),
    [
        ("#Xmas", "Xmas"),
        ("##X#", "X#"),
        (" inboX/ ", "inboX"),
        ("a/b//", "a/b"),
        ("#/X/", "/X"),
    ],
)
def test_a_tag_loses_only_its_hash_and_trailing_slash(written: str, kept: str) -> None:
    assert Filters(tags=[written]).tags == (kept,)


@pytest.mark.parametrize("folder", [".", "/", " ", " . "])
def test_the_vault_root_as_a_folder_is_no_folder_filter(folder: str) -> None:
    assert Filters(folder=folder).folder is None
    assert Filters(folder=folder).is_empty


def test_a_filter_describes_each_active_part_by_its_name() -> None:
    built = Filters(
        folder="work/",
        tags=["#ops", "q1"],
        note_type=" meeting ",
        since="2024-01-01",
        until="2024-02-01",
        where=["status = done", "rating > 3"],
    )
    assert built.describe() == {
        "folder": "work",
        "tag": "ops, q1",
        "type": "meeting",
        "modified_since": "2024-01-01",
        "modified_until": "2024-02-01",
        "where": "status = done; rating > 3",
    }
    assert Filters(tags=["ops", "q1"], any_tag=True).describe() == {"tag": "ops or q1"}
    assert Filters(tags=["ops"], any_tag=True).describe() == {"tag": "ops"}
    assert Filters().describe() == {} and Filters().is_empty
    assert not Filters(note_type="x").is_empty


def test_each_field_is_kept_normalised() -> None:
    assert Filters(note_type="  ").note_type is None
    assert Filters(any_tag=1).any_tag is True  # type: ignore[arg-type]  # a truthy value
    assert Filters(tags="ops").tags == ("ops",), "one string is one tag"
    assert Filters(tags=["a", "#a", "a/", " ", "b"]).tags == ("a", "b")
    assert Filters(folder=" work/ ").folder == "work"
    assert Filters(where=[" a = b ", " "]).where == ("a = b",)


def test_a_range_that_ends_where_it_starts_is_empty() -> None:
    """``until`` 2024-04-30 ends at local midnight starting May 1st: no time is in between."""
    with pytest.raises(InvalidFilterError) as refused:
        Filters(since="2024-05-01T00:00", until="2024-04-30")
    assert refused.value.message == (
        "modified since 2024-05-01T00:00 is not before modified until 2024-04-30"
    )
    one_minute = Filters(since="2024-05-01T00:00", until="2024-05-01T00:01")
    assert one_minute.until_bound is not None and one_minute.since_bound is not None
    assert one_minute.until_bound.ns - one_minute.since_bound.ns == 60 * 10**9


@pytest.mark.parametrize(
    ("condition", "value"),
    [
        ("tags = #Xmas", "Xmas"),
        ("tags ~ #x", "x"),
        ("tags = ##x", "x"),
        ("title = #x", "#x"),  # only the tags key drops the hash
        ("tags = 3", 3),
    ],
)
def test_a_tag_condition_drops_the_hash_as_a_tag_filter_does(condition: str, value: object) -> None:
    assert parse_condition(condition).value == value


def test_a_time_bound_keeps_what_was_written_without_spaces() -> None:
    for written in (" 7d ", " 2024-05-01 ", " 2024-05-01T08:00 "):
        bound = parse_time_bound("modified since", written, end_of_day=False)
        assert bound is not None and bound.text == written.strip()


@pytest.mark.parametrize(
    ("condition", "value"),
    [
        ("status = Xmas", "Xmas"),  # only " and ' open a quoted value
        ("code = XYZX", "XYZX"),
        ("at > 2026-01-31T12:00Z", dt.datetime(2026, 1, 31, 12, tzinfo=dt.timezone.utc)),
        ("at > 2026-01-31T12:00+02:00", dt.datetime(2026, 1, 31, 10, tzinfo=dt.timezone.utc)),
    ],
)
def test_a_value_is_read_as_written(condition: str, value: object) -> None:
    assert parse_condition(condition).value == value
