"""The search request: every option is checked once, when the value is built, and an invalid one
is a ``VaultctxError`` (also a ``ValueError``) whose suggestion is the fix."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters, InvalidFilterError
from vaultctx.search.request import InvalidSearchError, SearchRequest, Weights


@pytest.mark.parametrize(
    ("options", "problem", "fix"),
    [
        ({"query": ""}, "the search query is empty", "words to look for"),
        ({"query": " \t\n"}, "the search query is empty", "words to look for"),
        ({"limit": 0}, "limit must be at least 1", "results to return"),
        ({"max_tokens": -5}, "max_tokens must be at least 1", "tokens of text"),
        ({"mode": "fuzzy"}, "unknown mode 'fuzzy'", "hybrid, bm25, vector"),
        ({"fusion": "max"}, "unknown fusion 'max'", "score, rrf"),
        ({"depth": 4}, "graph depth must be 0 to 3", "0 to 3"),
        ({"depth": -1}, "graph depth must be 0 to 3", "0 to 3"),
        ({"depth": True}, "not a whole number", "0 to 3"),
    ],
)
def test_an_invalid_request_names_the_option_and_the_fix(
    options: dict[str, Any], problem: str, fix: str
) -> None:
    with pytest.raises(InvalidSearchError) as raised:
        SearchRequest(**{"query": "compost", **options})
    assert problem in raised.value.message and fix in raised.value.suggestion
    assert isinstance(raised.value, VaultctxError) and isinstance(raised.value, ValueError)


@pytest.mark.parametrize("weight", [-0.1, math.nan, math.inf])
def test_weights_are_numbers_of_zero_or_more(weight: float) -> None:
    with pytest.raises(InvalidSearchError, match="weight"):
        Weights(bm25=weight)
    with pytest.raises(InvalidSearchError, match="weight"):
        Weights(vector=weight)


def test_unset_weights_are_the_measured_ones() -> None:
    assert Weights().keyword(graph=False) == 1.0 and Weights().keyword(graph=True) == 0.5
    assert Weights().vectors(0.67) == 0.67
    chosen = Weights(bm25=0.2, vector=0.0)
    assert chosen.keyword(graph=True) == 0.2 and chosen.vectors(0.67) == 0.0


def test_a_request_is_a_value() -> None:
    built = SearchRequest("compost", filters=Filters(tags=["garden"]))
    assert built == SearchRequest("compost", filters=Filters(tags=["#garden"]))
    assert hash(built) == hash(SearchRequest("compost", filters=Filters(tags=["garden"])))
    with pytest.raises(InvalidSearchError):
        replace(built, limit=0)  # a changed copy is checked again
    with pytest.raises(InvalidFilterError):
        SearchRequest("compost", filters=Filters(where=["rating => 5"]))
