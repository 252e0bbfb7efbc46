"""Every refusal of a search request, a filter or a request sent as JSON, word for word.

The broader tests check that each message names the problem; these pin the whole text and the
suggestion, since both are what a user (or a model, through MCP) reads to fix the request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters, parse_condition
from vaultctx.search.request import SearchRequest, Weights
from vaultctx.search.request_json import request_from_json

DEPTHS = "give the number of links to follow, 0 to 3 (1 is the default)"
WEIGHT_FIX = "give a weight such as 0.5 or 1.0 (0 keeps the list's ranks out of the score)"
TIME_FIX = "use YYYY-MM-DD (e.g. 2024-03-01), YYYY-MM-DDTHH:MM, or an age such as 12h, 7d, 2w"
MALFORMED = ("the search request is malformed", "send the fields of a search")
SYNTAX = (
    "expected KEY OP VALUE with OP one of = != > >= < <= ~ (contains); "
    "dotted keys reach into nested front matter"
)
EXAMPLES = (
    "write it as e.g. `status = active`, `project.status != done`, `rating >= 4`, "
    '`due < 2026-01-31`, `title ~ meeting`, `owner = "Kim, J."`'
)


def refusal(build: Callable[[], object]) -> tuple[str, str]:
    with pytest.raises(VaultctxError) as raised:
        build()
    return raised.value.message, raised.value.suggestion


@pytest.mark.parametrize(
    ("options", "message", "suggestion"),
    [
        ({"query": ""}, "the search query is empty", "give the words to look for, e.g. `compost`"),
        ({"query": 7}, "the search query is empty", "give the words to look for, e.g. `compost`"),
        ({"limit": 0}, "limit must be at least 1 (got 0)", "give the results to return, e.g. 10"),
        (
            {"limit": True},
            "limit must be at least 1 (got True)",
            "give the results to return, e.g. 10",
        ),
        (
            {"limit": 2.0},
            "limit must be at least 1 (got 2.0)",
            "give the results to return, e.g. 10",
        ),
        (
            {"max_tokens": 0},
            "max_tokens must be at least 1 (got 0)",
            "give the tokens of text, e.g. 4000",
        ),
        ({"mode": "fuzzy"}, "unknown mode 'fuzzy'", "use one of: hybrid, bm25, vector"),
        ({"fusion": "max"}, "unknown fusion 'max'", "use one of: score, rrf"),
        ({"depth": 1.0}, "graph depth 1.0 is not a whole number", DEPTHS),
        ({"depth": False}, "graph depth False is not a whole number", DEPTHS),
        ({"depth": 4}, "graph depth must be 0 to 3 links (got 4)", DEPTHS),
        ({"depth": -1}, "graph depth must be 0 to 3 links (got -1)", DEPTHS),
    ],
)
def test_a_request_refusal_word_for_word(
    options: dict[str, Any], message: str, suggestion: str
) -> None:
    assert refusal(lambda: SearchRequest(**{"query": "compost", **options})) == (
        message,
        suggestion,
    )


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("limit", [1, 10])
def test_the_edges_of_the_allowed_range_are_allowed(depth: int, limit: int) -> None:
    built = SearchRequest("compost", limit=limit, max_tokens=1, depth=depth, fusion="rrf")
    assert (built.depth, built.limit, built.max_tokens, built.fusion) == (depth, limit, 1, "rrf")
    assert SearchRequest("compost", fusion="score").fusion == "score"


@pytest.mark.parametrize("name", ["bm25", "vector"])
@pytest.mark.parametrize("weight", [-1, -0.5, float("nan")])
def test_a_weight_refusal_word_for_word(name: str, weight: float) -> None:
    assert refusal(lambda: Weights(**{name: weight})) == (
        f"the {name} weight {weight!r} is not a number of 0 or more",
        WEIGHT_FIX,
    )


def test_a_weight_of_zero_is_allowed_and_kept() -> None:
    assert Weights(bm25=0, vector=0.0) == Weights(bm25=0, vector=0.0)
    zero = Weights(bm25=0, vector=0)
    assert zero.keyword(graph=False) == 0 and zero.keyword(graph=True) == 0
    assert zero.vectors(0.67) == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"since": "bad"}, "modified since 'bad' is not an ISO 8601 date or an age"),
        ({"until": " 7 days "}, "modified until '7 days' is not an ISO 8601 date or an age"),
        ({"since": "2024-02-30"}, "modified since '2024-02-30' is not an ISO 8601 date or an age"),
        (
            {"until": "2024-01-01T25:00"},
            "modified until '2024-01-01T25:00' is not an ISO 8601 date or an age",
        ),
    ],
)
def test_a_time_bound_refusal_word_for_word(options: dict[str, Any], message: str) -> None:
    assert refusal(lambda: Filters(**options)) == (message, TIME_FIX)


def test_an_empty_date_range_word_for_word() -> None:
    assert refusal(lambda: Filters(since="2024-05-03", until="2024-05-01")) == (
        "modified since 2024-05-03 is not before modified until 2024-05-01",
        "swap the dates or widen the range",
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        ("status", "has no operator"),
        (
            "status ! active",
            "uses `!`, which is not an operator (quote a value that starts with = ! < > or ~)",
        ),
        (
            "rating > = 5",
            "uses `> =`, which is not an operator (quote a value that starts with = ! < > or ~)",
        ),
        ("= active", "has no front matter key before `=`"),
        ("a..b = x", "has an unusable key `a..b` (quotes or an empty dotted part)"),
        ('"a" = x', 'has an unusable key `"a"` (quotes or an empty dotted part)'),
        ("status =", 'has no value after `=` (write "" for the empty text)'),
        ('title = "open', 'has an unclosed " quote'),
        ("title = '", "has an unclosed ' quote"),
        ("draft >= true", "compares true/false with `>=`; use = or !="),
        ("draft ~ true", None),
        ("due < 2026-02-30", "has `2026-02-30`, which is not a real date or time"),
        ("at > 2026-01-31T25:00", "has `2026-01-31T25:00`, which is not a real date or time"),
    ],
)
def test_a_condition_refusal_word_for_word(text: str, problem: str | None) -> None:
    if problem is None:
        assert parse_condition(text).value == "true"  # after ~ a value is text
        return
    assert refusal(lambda: parse_condition(text)) == (
        f"invalid filter condition {text.strip()!r}: it {problem}; {SYNTAX}",
        EXAMPLES,
    )


@pytest.mark.parametrize(
    ("body", "message", "suggestion"),
    [
        ([], *MALFORMED),
        ({"query": "x", "extra": 1}, *MALFORMED),
        ({"query": "x", "weights": []}, *MALFORMED),
        ({"query": "x", "filters": []}, *MALFORMED),
        ({"query": "x", "filters": {"colour": "red"}}, *MALFORMED),
        ({"query": "x", "weights": {"graph": 1}}, *MALFORMED),
        (
            {"query": "x", "filters": {"folder": 1}},
            "filter folder has the wrong type",
            MALFORMED[1],
        ),
        (
            {"query": "x", "filters": {"note_type": True}},
            "filter note_type has the wrong type",
            MALFORMED[1],
        ),
        ({"query": "x", "filters": {"since": 7}}, "filter since has the wrong type", MALFORMED[1]),
        ({"query": "x", "filters": {"until": []}}, "filter until has the wrong type", MALFORMED[1]),
        (
            {"query": "x", "filters": {"tags": "a"}},
            "filter tags is not a list of strings",
            "send strings",
        ),
        (
            {"query": "x", "filters": {"where": ["a = b", 3]}},
            "filter where is not a list of strings",
            "send strings",
        ),
        (
            {"query": "x", "weights": {"bm25": "1"}},
            "the bm25 weight has the wrong type",
            MALFORMED[1],
        ),
        (
            {"query": "x", "weights": {"vector": True}},
            "the vector weight has the wrong type",
            MALFORMED[1],
        ),
        (
            {"query": "x", "filters": {"any_tag": 1}},
            "filter any_tag has the wrong type",
            MALFORMED[1],
        ),
        ({"query": "x", "notes": "yes"}, "notes has the wrong type", MALFORMED[1]),
        ({"query": "x", "graph": 1}, "graph has the wrong type", MALFORMED[1]),
        ({"limit": 3}, "the search query is empty", "give the words to look for, e.g. `compost`"),
    ],
)
def test_a_json_request_refusal_word_for_word(body: object, message: str, suggestion: str) -> None:
    assert refusal(lambda: request_from_json(body)) == (message, suggestion)
