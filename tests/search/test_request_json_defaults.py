"""A search request sent as JSON with only some of its fields (an older or a hand-written client)
means what the same request typed with those options means: every field left out takes the
default ``SearchRequest`` gives it, and what is sent is exactly the request's fields."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from vaultctx.search.filters import Filters
from vaultctx.search.request import SearchRequest, Weights
from vaultctx.search.request_json import request_from_json, request_to_json


def test_a_request_of_only_a_query_is_the_default_request() -> None:
    read = request_from_json({"query": "compost"})
    assert read == SearchRequest("compost")
    assert (read.limit, read.max_tokens, read.mode, read.fusion) == (10, 4000, "hybrid", None)
    assert (read.notes, read.graph, read.depth) == (False, False, 1)
    assert read.weights == Weights() and read.filters == Filters()
    assert not read.filters.any_tag


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ({"weights": {}}, SearchRequest("q")),
        ({"weights": {"bm25": 0.5}}, SearchRequest("q", weights=Weights(bm25=0.5))),
        ({"weights": {"vector": 2}}, SearchRequest("q", weights=Weights(vector=2))),
        ({"filters": {}}, SearchRequest("q")),
        ({"filters": {"tags": ["a"]}}, SearchRequest("q", filters=Filters(tags=["a"]))),
        ({"filters": {"where": ["a = b"]}}, SearchRequest("q", filters=Filters(where=["a = b"]))),
        ({"filters": {"folder": "p"}}, SearchRequest("q", filters=Filters(folder="p"))),
        ({"filters": {"note_type": "t"}}, SearchRequest("q", filters=Filters(note_type="t"))),
        ({"filters": {"any_tag": False}}, SearchRequest("q")),
        ({"notes": True}, SearchRequest("q", notes=True)),
        ({"graph": True, "depth": 0}, SearchRequest("q", graph=True, depth=0)),
        ({"mode": "bm25", "fusion": "rrf"}, SearchRequest("q", mode="bm25", fusion="rrf")),
        ({"limit": 1, "max_tokens": 1}, SearchRequest("q", limit=1, max_tokens=1)),
    ],
)
def test_each_field_left_out_takes_its_default(
    sent: dict[str, Any], expected: SearchRequest
) -> None:
    assert request_from_json({"query": "q", **sent}) == expected


def test_a_request_is_sent_as_exactly_its_fields() -> None:
    request = SearchRequest(
        "deploy",
        limit=3,
        max_tokens=900,
        mode="vector",
        weights=Weights(bm25=0.5, vector=2.0),
        fusion="rrf",
        notes=True,
        filters=Filters(
            folder="10-projects/",
            tags=["#ops"],
            note_type="meeting",
            since=dt.datetime(2024, 1, 2, 3, 4),
            until=dt.date(2024, 2, 1),
            where=["status = done"],
            any_tag=True,
        ),
        graph=True,
        depth=2,
    )
    assert request_to_json(request) == {
        "query": "deploy",
        "limit": 3,
        "max_tokens": 900,
        "mode": "vector",
        "weights": {"bm25": 0.5, "vector": 2.0},
        "fusion": "rrf",
        "notes": True,
        "filters": {
            "folder": "10-projects",
            "tags": ["ops"],
            "note_type": "meeting",
            "since": "2024-01-02T03:04:00",
            "until": "2024-02-01",
            "where": ["status = done"],
            "any_tag": True,
        },
        "graph": True,
        "depth": 2,
    }
    read = request_from_json(request_to_json(request))
    assert read.filters.since_bound == request.filters.since_bound
    assert read.filters.until_bound == request.filters.until_bound
    assert request_to_json(read) == request_to_json(request)
    assert request_to_json(SearchRequest("x"))["filters"] == {
        "folder": None,
        "tags": [],
        "note_type": None,
        "since": None,
        "until": None,
        "where": [],
    }
