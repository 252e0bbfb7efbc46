"""Reading a remote search's answer back (search/request_json.py): its notices come back as sent,
and a part of the wrong shape is refused saying what was expected."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vaultctx.search.request_json import response_from_json
from vaultctx.search.retriever import SearchResponse


def sent(**changes: Any) -> dict[str, Any]:
    response = SearchResponse("q", "hybrid", [], 1.5, ["no notes match the filters", "second"])
    data: dict[str, Any] = json.loads(json.dumps(response.as_dict()))
    return {**data, **changes}


def test_the_notices_come_back_as_sent_in_order() -> None:
    read = response_from_json(sent())
    assert read.notices == ["no notes match the filters", "second"]
    assert (read.query, read.mode, read.took_ms, read.results) == ("q", "hybrid", 1.5, [])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "expected an object"),
        ("{}", "expected an object"),
        (sent(results={}), "expected a list"),
        (sent(notices="one"), "expected a list"),
        (sent(results=[3]), "expected an object"),
        (sent(notices=[3]), "3 is not of the expected type"),
        (sent(took_ms=True), "True is not of the expected type"),
    ],
)
def test_a_part_of_the_wrong_shape_says_what_was_expected(body: object, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        response_from_json(body)
    assert str(refused.value) == message
