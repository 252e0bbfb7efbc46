"""A search request and response as JSON (search/request_json.py): what ``vaultctx ask`` sends to
a running server and reads back. Read back, each is what was sent; anything else is refused with
the error the caller expects, never another exception."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import copy_example_vault
from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters, TimeBound
from vaultctx.search.request import SearchRequest, Weights
from vaultctx.search.request_json import request_from_json, request_to_json, response_from_json
from vaultctx.search.retriever import SearchResponse

REQUESTS = [
    SearchRequest("wal mode"),
    SearchRequest("postmortem", limit=3, max_tokens=900, mode="bm25", notes=True),
    SearchRequest("invoice", mode="vector", fusion="rrf", weights=Weights(bm25=0.5, vector=2)),
    SearchRequest("billing", graph=True, depth=3),
    SearchRequest(
        "deploy",
        filters=Filters(
            folder="10-projects",
            tags=["security", "ops/oncall"],
            note_type="meeting",
            since="7d",
            until=dt.date(2026, 11, 30),
            where=["status = done"],
        ),
    ),
    SearchRequest("ops", filters=Filters(tags=["security", "ops"], any_tag=True)),
]


def test_any_tag_is_sent_only_when_asked_and_read_back() -> None:
    plain = request_to_json(SearchRequest("x", filters=Filters(tags=["a", "b"])))
    assert "any_tag" not in plain["filters"]  # a server without the field still reads it
    sent = request_to_json(SearchRequest("x", filters=Filters(tags=["a", "b"], any_tag=True)))
    assert sent["filters"]["any_tag"] is True
    assert request_from_json(sent).filters.any_tag
    with pytest.raises(VaultctxError):
        request_from_json({**sent, "filters": {**sent["filters"], "any_tag": "yes"}})


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda r: r.query)
def test_a_request_reads_back_as_sent(request_: SearchRequest) -> None:
    sent = json.loads(json.dumps(request_to_json(request_)))
    read = request_from_json(sent)
    assert request_to_json(read) == request_to_json(request_)
    # An age ("7d") is counted back from when each side reads it: compare what was asked.
    assert text_of(read.filters.since_bound) == text_of(request_.filters.since_bound)
    assert read.filters.until_bound == request_.filters.until_bound


def text_of(bound: TimeBound | None) -> str | None:
    return None if bound is None else bound.text


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    root = tmp_path_factory.mktemp("request-json")
    with Vault(copy_example_vault(root / "vault"), db=root / "index.db") as vault:
        vault.index(fast=True)
        yield vault


@pytest.mark.parametrize("request_", REQUESTS[:4], ids=lambda r: r.query)
def test_a_response_reads_back_as_sent(example: Vault, request_: SearchRequest) -> None:
    response = example.search(request_)
    read = response_from_json(json.loads(json.dumps(response.as_dict())))
    assert read == replace(response, took_ms=round(response.took_ms, 2))


def test_a_graph_response_keeps_why_each_result_is_there(example: Vault) -> None:
    response = example.search(SearchRequest("billing service", graph=True))
    assert any(result.graph is not None for result in response.results)
    assert response_from_json(response.as_dict()).results == response.results


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)
KEYS = st.sampled_from(sorted(request_to_json(REQUESTS[4])))


def _mutated(base: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    changed = dict(base)
    for _ in range(data.draw(st.integers(1, 3))):
        changed[data.draw(KEYS | st.text(max_size=6))] = data.draw(JSON)
    return changed


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_malformed_request_is_an_invalid_search_never_another_error(data: st.DataObject) -> None:
    body = data.draw(JSON | st.builds(_mutated, st.just(request_to_json(REQUESTS[4])), st.data()))
    try:
        request = request_from_json(body)
    except VaultctxError:
        return
    assert isinstance(request, SearchRequest)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_malformed_response_is_a_value_error_never_another_error(data: st.DataObject) -> None:
    valid = SearchResponse("q", "hybrid", [], 1.0).as_dict()
    body = data.draw(JSON | st.builds(_mutated, st.just(valid), st.data()))
    try:
        response = response_from_json(body)
    except ValueError:
        return
    assert isinstance(response, SearchResponse)


def test_a_response_with_a_result_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    result = {"file_path": "a.md", "title": "A", "section": "", "citation": "a.md", "text": "x"}
    result |= {"score": 0.5, "bm25_rank": 1, "vec_rank": None, "chunk_id": 3, "graph": None}
    body = SearchResponse("q", "hybrid", [], 1.0).as_dict() | {"results": [result]}
    assert response_from_json(body).results[0].chunk_id == 3
    for field, wrong in (("chunk_id", "3"), ("score", True), ("graph", {"role": "x"})):
        with pytest.raises(ValueError):
            response_from_json(body | {"results": [result | {field: wrong}]})
