"""The maps of content of a remote search's answer survive the trip through JSON (what ``vaultctx
ask`` reads back from a running server), and a malformed one is refused, never half read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vaultctx.search.graph import RelatedMoc
from vaultctx.search.request_json import response_from_json
from vaultctx.search.retriever import SearchResponse, SearchResult

MOCS = [
    RelatedMoc("Maps/Home.md", "Home", ["a.md", "b/c.md"]),
    RelatedMoc("Maps/Empty.md", "Empty", []),
]


def sent() -> dict[str, Any]:
    result = SearchResult("a.md", "A", "", "a.md", "text", 0.5, 1, None, 7)
    response = SearchResponse("q", "graph", [result], 2.0, ["n"], list(MOCS))
    data: dict[str, Any] = json.loads(json.dumps(response.as_dict()))
    return data


def test_maps_of_content_are_read_back_whole() -> None:
    read = response_from_json(sent())
    assert read.related_mocs == MOCS
    assert [type(moc) for moc in read.related_mocs] == [RelatedMoc, RelatedMoc]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"path": 3}, "3 is not of the expected type"),
        ({"path": None}, "None is not of the expected type"),
        ({"title": ["Home"]}, "['Home'] is not of the expected type"),
        ({"title": None}, "None is not of the expected type"),
        ({"links_to": "a.md"}, "expected a list"),
        ({"links_to": None}, "expected a list"),
        ({"links_to": ["a.md", 5]}, "5 is not of the expected type"),
        ({"links_to": [True]}, "True is not of the expected type"),
    ],
)
def test_a_malformed_map_of_content_is_refused(change: dict[str, Any], message: str) -> None:
    data = sent()
    data["related_mocs"][0].update(change)
    with pytest.raises(ValueError) as refused:
        response_from_json(data)
    assert str(refused.value) == message


@pytest.mark.parametrize("moc", ["Maps/Home.md", ["Maps/Home.md"], None])
def test_a_map_of_content_that_is_no_object_is_refused(moc: object) -> None:
    data = sent()
    data["related_mocs"][0] = moc
    with pytest.raises(ValueError, match="expected an object"):
        response_from_json(data)


def test_a_missing_list_of_maps_is_refused() -> None:
    data = sent()
    del data["related_mocs"]
    with pytest.raises(ValueError, match="expected a list"):
        response_from_json(data)
