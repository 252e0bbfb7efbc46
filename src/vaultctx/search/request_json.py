"""A search request and its response as JSON, for a search run by another process.

``vaultctx ask`` and ``chat`` send their searches to a running server (``cli.remote_search``),
which has the models loaded. The request is rebuilt through the same constructors that check it
when a user types it (so a hostile body is refused as an invalid search, never run), and the
response is rebuilt field by field with its types checked: a malformed answer raises
``ValueError`` and the caller searches in-process instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, get_args

from vaultctx.search.filters import Filters
from vaultctx.search.graph import GraphOrigin, RelatedMoc, Role
from vaultctx.search.ranking_constants import DEFAULT_DEPTH
from vaultctx.search.request import InvalidSearchError, SearchRequest, Weights
from vaultctx.search.retriever import SearchResponse, SearchResult

_FILTER_FIELDS = ("folder", "tags", "note_type", "since", "until", "where", "any_tag")
_REQUEST_FIELDS = frozenset(field.name for field in fields(SearchRequest))


def request_to_json(request: SearchRequest) -> dict[str, Any]:
    found = request.filters
    filters: dict[str, Any] = {
        "folder": found.folder,
        "tags": list(found.tags),
        "note_type": found.note_type,
        "since": _time_text(found.since),
        "until": _time_text(found.until),
        "where": list(found.where),
    }
    if found.any_tag:  # only when asked: a server without the field refuses it, never ignores it
        filters["any_tag"] = True
    return {
        "query": request.query,
        "limit": request.limit,
        "max_tokens": request.max_tokens,
        "mode": request.mode,
        "weights": {"bm25": request.weights.bm25, "vector": request.weights.vector},
        "fusion": request.fusion,
        "notes": request.notes,
        "filters": filters,
        "graph": request.graph,
        "depth": request.depth,
    }


def _time_text(value: str | dt.date | None) -> str | None:
    return value.isoformat() if isinstance(value, dt.date) else value


def request_from_json(data: object) -> SearchRequest:
    """The request ``data`` describes, checked as a typed one is; ``InvalidSearchError`` (or
    ``InvalidFilterError``) for anything else."""
    if not isinstance(data, Mapping) or not set(data) <= _REQUEST_FIELDS:
        raise InvalidSearchError("the search request is malformed", "send the fields of a search")
    weights = data.get("weights", {})
    filters = data.get("filters", {})
    if not isinstance(weights, Mapping) or not isinstance(filters, Mapping):
        raise InvalidSearchError("the search request is malformed", "send the fields of a search")
    if not set(filters) <= set(_FILTER_FIELDS) or not set(weights) <= {"bm25", "vector"}:
        raise InvalidSearchError("the search request is malformed", "send the fields of a search")
    for name in ("folder", "note_type", "since", "until"):
        _require(filters.get(name), (str, type(None)), f"filter {name}")
    for name in ("tags", "where"):
        values = filters.get(name, [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise InvalidSearchError(f"filter {name} is not a list of strings", "send strings")
    for name in ("bm25", "vector"):
        _require(weights.get(name), (int, float, type(None)), f"the {name} weight")
    _require(filters.get("any_tag", False), (bool,), "filter any_tag")
    _require(data.get("notes", False), (bool,), "notes")
    _require(data.get("graph", False), (bool,), "graph")
    return SearchRequest(
        query=data.get("query"),  # type: ignore[arg-type]  # checked by SearchRequest
        limit=data.get("limit", 10),
        max_tokens=data.get("max_tokens", 4000),
        mode=data.get("mode", "hybrid"),
        weights=Weights(bm25=weights.get("bm25"), vector=weights.get("vector")),
        fusion=data.get("fusion"),
        notes=data.get("notes", False),
        filters=Filters(**{name: filters[name] for name in _FILTER_FIELDS if name in filters}),
        graph=data.get("graph", False),
        depth=data.get("depth", DEFAULT_DEPTH),
    )


def _require(value: object, types: tuple[type, ...], what: str) -> None:
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise InvalidSearchError(f"{what} has the wrong type", "send the fields of a search")


def response_from_json(data: object) -> SearchResponse:
    """``SearchResponse.as_dict()`` read back; ``ValueError`` when any part is not as written."""
    record = _mapping(data)
    results = [_result(item) for item in _list(record.get("results"))]
    return SearchResponse(
        query=_typed(record.get("query"), str),
        mode=_typed(record.get("mode"), str),
        results=results,
        took_ms=float(_typed(record.get("took_ms"), (int, float))),
        notices=[_typed(notice, str) for notice in _list(record.get("notices"))],
        related_mocs=[_moc(item) for item in _list(record.get("related_mocs"))],
    )


def _result(data: object) -> SearchResult:
    record = _mapping(data)
    graph = record.get("graph")
    return SearchResult(
        file_path=_typed(record.get("file_path"), str),
        title=_typed(record.get("title"), str),
        section=_typed(record.get("section"), str),
        citation=_typed(record.get("citation"), str),
        text=_typed(record.get("text"), str),
        score=float(_typed(record.get("score"), (int, float))),
        bm25_rank=_rank(record.get("bm25_rank")),
        vec_rank=_rank(record.get("vec_rank")),
        chunk_id=_typed(record.get("chunk_id"), int),
        graph=None if graph is None else _origin(graph),
    )


def _origin(data: object) -> GraphOrigin:
    record = _mapping(data)
    if set(record) != {field.name for field in fields(GraphOrigin)}:
        raise ValueError("a graph origin with other fields")
    role = _typed(record["role"], str)
    if role not in get_args(Role):
        raise ValueError(f"unknown graph role {role!r}")
    return GraphOrigin(
        role=role,  # type: ignore[arg-type]  # checked just above
        hop=_typed(record["hop"], int),
        relevance=float(_typed(record["relevance"], (int, float))),
        score=float(_typed(record["score"], (int, float))),
        via=_optional_text(record["via"]),
        seed=_optional_text(record["seed"]),
    )


def _moc(data: object) -> RelatedMoc:
    record = _mapping(data)
    links = [_typed(link, str) for link in _list(record.get("links_to"))]
    return RelatedMoc(_typed(record.get("path"), str), _typed(record.get("title"), str), links)


def _mapping(data: object) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ValueError("expected an object")
    return data


def _list(data: object) -> list[Any]:
    if not isinstance(data, list):
        raise ValueError("expected a list")
    return data


def _typed(value: Any, types: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) or not isinstance(value, types):
        raise ValueError(f"{value!r} is not of the expected type")
    return value


def _rank(value: object) -> int | None:
    return None if value is None else int(_typed(value, int))


def _optional_text(value: object) -> str | None:
    return None if value is None else str(_typed(value, str))
