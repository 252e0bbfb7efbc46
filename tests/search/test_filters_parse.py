"""The filter language (SPEC §8): parsing conditions and dates, and how values compare."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from vaultctx.search.filters import (
    Filters,
    InvalidFilterError,
    parse_condition,
    parse_time_bound,
)
from vaultctx.vault.paths import UnsafePathError


def holds(condition: str, stored: object) -> bool:
    return parse_condition(condition).holds(stored)


@pytest.mark.parametrize(
    ("text", "key", "op", "value"),
    [
        ("status = active", "status", "=", "active"),
        ("status=active", "status", "=", "active"),
        ("status != done", "status", "!=", "done"),
        ("rating > 3", "rating", ">", 3),
        ("rating >= 3.5", "rating", ">=", 3.5),
        ("rating < -2", "rating", "<", -2),
        ("rating <= 10", "rating", "<=", 10),
        ("title ~ Plan", "title", "~", "Plan"),
        ("project.status = active", "project.status", "=", "active"),
        ("due < 2026-01-31", "due", "<", dt.date(2026, 1, 31)),
        ("at >= 2026-01-31T09:30", "at", ">=", dt.datetime(2026, 1, 31, 9, 30)),
        ("draft = TRUE", "draft", "=", True),
        ('code = "007"', "code", "=", "007"),
        ("owner = 'Kim, J. = boss'", "owner", "=", "Kim, J. = boss"),
        ('status = ""', "status", "=", ""),
        ("version ~ 3.10", "version", "~", "3.10"),
        ("url ~ https://x.test/?a=b", "url", "~", "https://x.test/?a=b"),
        ("  my key  =  two words  ", "my key", "=", "two words"),
        ("tags = #project", "tags", "=", "project"),
    ],
)
def test_conditions_parse_into_key_operator_and_typed_value(
    text: str, key: str, op: str, value: object
) -> None:
    condition = parse_condition(text)
    assert (condition.key, condition.op, condition.value) == (key, op, value)
    assert type(condition.value) is type(value)
    assert condition.text == text.strip()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("status", "has no operator"),
        ("status active", "has no operator"),
        ("status ! active", "uses `!`, which is not an operator"),
        ("= active", "has no front matter key"),
        (">= 3", "has no front matter key"),
        ("status =", "has no value after `=`"),
        ("rating >=   ", "has no value after `>=`"),
        ("title ~", "has no value after `~`"),
        ('title = "open', 'unclosed " quote'),
        ("title = 'open", "unclosed ' quote"),
        ("project..status = x", "unusable key"),
        (".status = x", "unusable key"),
        ('"status" = x', "unusable key"),
        ("draft > true", "compares true/false with `>`"),
        ("due < 2026-02-30", "not a real date"),
        ("at > 2026-01-31T25:00", "not a real date"),
    ],
)
def test_each_invalid_condition_is_an_error_naming_it_and_the_syntax(
    text: str, problem: str
) -> None:
    with pytest.raises(InvalidFilterError) as raised:
        parse_condition(text)
    message = str(raised.value)
    assert problem in message
    assert repr(text.strip()) in message, "the message quotes the condition as written"
    assert "KEY OP VALUE" in message and "= != > >= < <= ~" in message
    assert "status = active" in raised.value.suggestion


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("rating => 5", "=>"),
        ("rating =< 5", "=<"),
        ("rating <> 5", "<>"),
        ("rating >>= 5", ">>="),
        ("status == active", "=="),
        ("rating !~ 5", "!~"),
        ("rating=>5", "=>"),
        ("rating > = 5", "> ="),
        ("rating < > 5", "< >"),
    ],
)
def test_only_the_seven_operators_are_read(text: str, written: str) -> None:
    """A misspelt operator is an error naming the ones there are, never a text comparison."""
    with pytest.raises(InvalidFilterError) as raised:
        parse_condition(text)
    message = str(raised.value)
    assert f"`{written}`" in message and "is not an operator" in message
    assert "= != > >= < <= ~" in message


def test_a_value_starting_with_an_operator_character_is_quoted() -> None:
    assert parse_condition('rating = "=>5"').value == "=>5"
    assert parse_condition("note ~ 'a <> b'").value == "a <> b"
    assert parse_condition("url ~ https://x.test/?a=b&c<d").value == "https://x.test/?a=b&c<d"


def test_a_bad_condition_among_good_ones_fails_the_whole_filter() -> None:
    with pytest.raises(InvalidFilterError, match="'rating'"):
        Filters(where=["status = active", "rating"])


def test_text_compares_case_insensitively() -> None:
    assert holds("status = Active", "active")
    assert not holds("status = active", "inactive")
    assert holds("status != done", "active")
    assert not holds("status != DONE", "done")
    assert holds("title > m", "Notes") and not holds("title > m", "Alpha")


def test_numbers_compare_as_numbers_not_text() -> None:
    assert holds("rating > 9", 10), "as text '10' < '9'"
    assert holds("rating >= 4", 4.0) and holds("rating = 4", 4.0)
    assert holds("rating < 10", "9"), "a number written as text still counts"
    assert not holds("rating > 3", "high"), "text that is no number is not comparable"
    assert holds("rating != 3", "high")
    assert not holds("rating = 1", True), "YAML true is not the number 1"


def test_dates_compare_as_dates() -> None:
    assert holds("due < 2026-01-31", "2026-01-09")
    assert holds("due > 2026-01-09", "2026-01-31")
    assert holds("due = 2026-01-31", "2026-01-31T23:59:00"), "a date matches its whole day"
    assert not holds("due > 2026-01-31", "2026-01-31T23:59:00")
    assert holds("due >= 2026-01-31T12:00", "2026-01-31T13:00:00")
    assert not holds("due >= 2026-01-31T12:00", "2026-01-31"), "a bare date is its midnight"
    assert holds("due < 2026-01-31T12:00:00+00:00", "2026-01-31T12:00:00+01:00")
    assert not holds("due < 2026-01-31", "31/01/2026"), "non-ISO text is not a date"
    assert not holds("due < 2026-01-31", 20260101)


def test_lists_match_by_membership() -> None:
    assert holds("tags = project", ["area", "Project"])
    assert not holds("tags = proj", ["project"])
    assert holds("tags != archive", ["area", "project"])
    assert not holds("tags != archive", ["area", "archive"])
    assert holds("scores > 8", [3, 9])
    assert not holds("scores > 9", [3, 9])
    assert holds("tags ~ proj", ["area", "my-project"])
    assert not holds("tags = x", [])
    assert holds("tags != x", [])


def test_contains_is_a_case_insensitive_substring_of_any_scalar() -> None:
    assert holds("title ~ PLAN", "Release plan 2026")
    assert holds("version ~ 3.1", 3.12)
    assert holds("draft ~ tru", True)
    assert not holds("title ~ plan", "Roadmap")
    assert not holds("owner ~ kim", {"name": "kim"}), "a mapping is not text"


def test_booleans_match_yaml_booleans_and_their_text() -> None:
    assert holds("draft = true", True) and holds("draft = true", "True")
    assert not holds("draft = true", False)
    assert holds("draft != true", False)


def test_an_absent_or_null_key_passes_only_not_equal() -> None:
    for condition in ("status = x", "rating > 1", "due < 2026-01-01", "title ~ a"):
        assert not holds(condition, None)
    assert holds("status != done", None)


def test_time_bounds_take_dates_times_and_ages() -> None:
    day = parse_time_bound("modified since", "2024-05-01", end_of_day=False)
    whole_day = parse_time_bound("modified until", "2024-05-01", end_of_day=True)
    assert day is not None and whole_day is not None
    assert whole_day.ns - day.ns == 24 * 3600 * 10**9
    assert day.ns == int(dt.datetime(2024, 5, 1).timestamp()) * 10**9, "local midnight"
    moment = parse_time_bound("modified since", "2024-05-01T08:00Z", end_of_day=False)
    assert moment is not None
    assert moment.ns == int(dt.datetime(2024, 5, 1, 8, tzinfo=dt.timezone.utc).timestamp()) * 10**9
    week = parse_time_bound("modified since", "2w", end_of_day=False)
    hours = parse_time_bound("modified since", "36H", end_of_day=False)
    assert week is not None and hours is not None and week.text == "2w"
    now_ns = dt.datetime.now().timestamp() * 10**9
    assert abs(now_ns - week.ns - 14 * 86400 * 10**9) < 60 * 10**9
    assert abs(now_ns - hours.ns - 36 * 3600 * 10**9) < 60 * 10**9
    assert parse_time_bound("modified since", "  ", end_of_day=False) is None


@pytest.mark.parametrize("text", ["05/01/2024", "last tuesday", "2024-13-01", "7 days", "7m"])
def test_a_bad_time_bound_is_an_error_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(InvalidFilterError) as raised:
        Filters(since=text)
    assert repr(text) in str(raised.value) and "ISO 8601" in str(raised.value)
    assert "YYYY-MM-DD" in raised.value.suggestion and "7d" in raised.value.suggestion


def test_an_empty_date_range_is_an_error() -> None:
    with pytest.raises(InvalidFilterError, match="not before"):
        Filters(since="2024-05-03", until="2024-05-01")
    assert Filters(since="2024-05-01", until="2024-05-01").until_bound is not None


def test_filters_normalise_and_describe_themselves() -> None:
    built = Filters(
        folder="projects/",
        tags=["#area/", "project", "Project"],
        note_type=" daily ",
        since="2024-01-01",
        where=["status = active", "  "],
    )
    assert built.folder == "projects"
    assert built.tags == ("area", "project", "Project")
    assert built.note_type == "daily"
    assert [c.text for c in built.conditions] == ["status = active"]
    assert built.describe() == {
        "folder": "projects",
        "tag": "area, project, Project",
        "type": "daily",
        "modified_since": "2024-01-01",
        "where": "status = active",
    }
    assert not built.is_empty
    assert Filters(folder=" / ", tags=["", "#"], where=[""], since="").is_empty
    assert Filters(where="status = x").conditions[0].key == "status", "one string is one"


def test_folder_refuses_traversal_like_every_path() -> None:
    with pytest.raises(UnsafePathError):
        Filters(folder="../elsewhere")


def test_deciding_from_the_json_text_agrees_with_decoding_it() -> None:
    conditions = [
        "title ~ plan",
        "title ~ SS",
        "title = straße",
        "title ~ 'say \"hi\"'",
        "title ~ a\\b",
        "tags = area/deep",
        "status != done",
        "rating > 3",
        'code = "7"',
    ]
    stored_values: list[object] = [
        "Release Plan",
        "STRASSE",
        "Straße",
        'they say "hi" daily',
        "a\\b",
        ["area", "Area/Deep"],
        "done",
        7,
        4.5,
        True,
        {"plan": 1},
        None,
    ]
    for text in conditions:
        condition = parse_condition(text)
        for stored in stored_values:
            raw = None if stored is None else json.dumps(stored, ensure_ascii=False)
            assert condition.holds_json(raw) == condition.holds(stored), (text, stored)
