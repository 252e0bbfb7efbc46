"""Why a graph result is there survives the trip through JSON whole (role, hop, scores, the note
it was reached from and its seed), and a malformed origin is refused with what is wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vaultctx.search.graph import GraphOrigin
from vaultctx.search.request_json import response_from_json
from vaultctx.search.retriever import SearchResponse, SearchResult

NEIGHBOUR = GraphOrigin("neighbor", 2, 0.8, 0.2, via="b.md", seed="a.md")


def response(origin: GraphOrigin | None) -> SearchResponse:
    result = SearchResult("c.md", "C", "", "c.md", "text", 0.5, None, 3, 7, graph=origin)
    return SearchResponse("q", "hybrid", [result], 1.0)


def sent(origin: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(response(NEIGHBOUR).as_dict()))
    data["results"][0]["graph"] = origin
    return data


def test_a_neighbour_keeps_its_path_back_to_the_seed() -> None:
    read = response_from_json(json.loads(json.dumps(response(NEIGHBOUR).as_dict())))
    assert read.results[0].graph == NEIGHBOUR
    seed = GraphOrigin("seed", 0, 0.9, 0.9)
    assert response_from_json(response(seed).as_dict()).results[0].graph == seed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": 1}, "a graph origin with other fields"),
        ({"role": "cousin"}, "unknown graph role 'cousin'"),
        ({"via": 5}, "5 is not of the expected type"),
        ({"seed": ["a.md"]}, "['a.md'] is not of the expected type"),
    ],
)
def test_a_malformed_origin_says_what_is_wrong(change: dict[str, Any], message: str) -> None:
    origin = {**json.loads(json.dumps(response(NEIGHBOUR).as_dict()))["results"][0]["graph"]}
    origin.update(change)
    with pytest.raises(ValueError) as refused:
        response_from_json(sent(origin))
    assert str(refused.value) == message
