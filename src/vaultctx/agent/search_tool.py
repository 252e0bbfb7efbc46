"""``search_vault``: the hybrid search of ``vaultctx search``, with filters, as text for a model,
followed by up to three passages of notes linked to the hits (graph RAG, ``agent/retrieval.py``).
Several ``tags`` keep a note carrying any one of them, as the seed's tool does; ``tagMatch:
"all"`` asks for every one.

The model's filter arguments (``folder``, ``tags``, ``modifiedAfter``/``modifiedBefore``,
``properties``) become one ``Filters``; every part is checked on its own so that all problems are
reported together ("The search filter is not valid:\n- …"), and a search never runs with a filter
silently dropped. Each hit shows its note, its citation (``[[path#Heading]]``, the form the model
is asked to cite) and an excerpt of at most 500 characters.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vaultctx.agent import tool_results as texts
from vaultctx.agent.retrieval import linked_results, wikilink, with_links
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext
    from vaultctx.search.filters import Filters
    from vaultctx.search.retriever import SearchResponse, SearchResult

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
# Room for every hit's whole chunk (chunk_max_chars is 2000 by default, about 500 tokens).
TOKENS_PER_RESULT = 600
# How several tags combine: the seed's tool keeps a note carrying any of them (OR).
TAG_MATCHES = ("any", "all")

SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look for, in words."},
        "limit": {
            "type": "number",
            "description": f"How many results, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}).",
        },
        "folder": {
            "type": "string",
            "description": "Only notes in this vault folder (and its subfolders).",
        },
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Only notes carrying any one of these tags (# and case ignored; nested tags "
                "match: `project` finds `project/alpha`)."
            ),
        },
        "tagMatch": {
            "type": "string",
            "enum": list(TAG_MATCHES),
            "description": "`any` (default): a note with one of the tags passes; `all`: every one.",
        },
        "modifiedAfter": {
            "type": "string",
            "description": "Only notes modified on or after this day, YYYY-MM-DD (local time).",
        },
        "modifiedBefore": {
            "type": "string",
            "description": "Only notes modified on or before this day, YYYY-MM-DD (local time).",
        },
        "properties": {
            "type": "array",
            "items": {"type": "string"},
            "description": (
                "Front matter conditions, all of which must hold: KEY OP VALUE with OP one of "
                "= != > >= < <= ~ (contains); dotted keys reach nested values, e.g. "
                "`status = active`, `rating >= 4`, `due < 2026-01-31`."
            ),
        },
    },
    "required": ["query"],
}


async def search_vault(context: ToolContext, args: dict[str, Any]) -> str:
    from vaultctx.search.request import SearchRequest

    query = args["query"].strip()
    if not query:
        return texts.tool_error(texts.EMPTY_QUERY)
    limit = _limit(args.get("limit"))
    if isinstance(limit, str):
        return limit
    filters = build_filters(args)
    if isinstance(filters, str):
        return filters
    request = SearchRequest(
        query, limit=limit, max_tokens=limit * TOKENS_PER_RESULT, filters=filters
    )
    try:
        response = context.vault.search(request)
        if not response.results:
            return _no_results(context, filters, response.notices)
        linked = with_links(response.results, linked_results(context.vault, request))
    except VaultctxError as exc:
        return texts.search_failed(exc.one_line())
    return format_results(response, filters, linked)


def _limit(value: object) -> int | str:
    if value is None:
        return DEFAULT_LIMIT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return texts.failed("search_vault", f"limit must be a number from 1 to {MAX_LIMIT}")
    return max(1, min(MAX_LIMIT, round(value)))


_SCALAR_FILTERS = (("folder", "folder"), ("modifiedAfter", "since"), ("modifiedBefore", "until"))


def build_filters(args: dict[str, Any]) -> Filters | str:
    """The one ``Filters`` the arguments spell, or the failure text listing every problem."""
    from vaultctx.search.filters import Filters

    parts: dict[str, Any] = {}
    problems: list[str] = []
    for key, name in _SCALAR_FILTERS:
        if key in args:
            parts[name] = args[key]
    for key, name in (("tags", "tags"), ("properties", "where")):
        if key not in args:
            continue
        value = args[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            problems.append(f"{key} must be a list of strings (got {value!r:.80})")
            continue
        parts[name] = value
    for name, value in parts.items():
        alone: list[dict[str, Any]] = (
            [{name: [item]} for item in value] if name == "where" else [{name: value}]
        )
        for part in alone:
            try:
                Filters(**part)
            except VaultctxError as exc:
                problems.append(exc.one_line())
    match = args.get("tagMatch", "any")
    if match not in TAG_MATCHES:
        problems.append(f"tagMatch must be one of {', '.join(TAG_MATCHES)} (got {match!r:.40})")
    if problems:
        return texts.invalid_filter(problems)
    try:
        # The checks that need two parts (a date range the wrong way).
        return Filters(**parts, any_tag=match == "any")
    except VaultctxError as exc:
        return texts.invalid_filter([exc.one_line()])


def format_results(
    response: SearchResponse, filters: Filters, linked: Sequence[SearchResult] = ()
) -> str:
    """The hits, then the notes linked to them (graph RAG), each with its citation."""
    shown = _filter_text(filters)
    lines = [f"Search results ({response.mode}){f' — filter: {shown}' if shown else ''}:"]
    for number, result in enumerate(response.results, start=1):
        lines += _result_lines(number, result)
    if linked:
        lines.append("Linked notes (reached through the links of the results above):")
        for number, result in enumerate(linked, start=len(response.results) + 1):
            lines += _result_lines(number, result)
    lines.extend(f"Note: {notice}" for notice in response.notices)
    return "\n".join(lines)


def _result_lines(number: int, result: SearchResult) -> list[str]:
    lines = [f"{number}. **{result.title}** ({result.file_path})"]
    if result.graph is not None and result.graph.via:
        lines.append(f"   Linked from: {result.graph.via}")
    lines.append(f"   Citation: {wikilink(result.citation)}")
    lines.append(f"   Excerpt: {excerpt(result.text)}")
    return lines


def excerpt(text: str) -> str:
    one_line = " ".join(text.split())
    cut = texts.EXCERPT_CHARS
    return one_line if len(one_line) <= cut else one_line[: cut - 1] + "…"


def _no_results(context: ToolContext, filters: Filters, notices: list[str]) -> str:
    from vaultctx.search.filters import Filters

    lines = [texts.NO_RESULTS]
    if not filters.is_empty:
        try:
            total = context.vault.list_notes(Filters(), limit=1).total
            passing = context.vault.list_notes(filters, limit=1).total
        except VaultctxError:
            total = passing = 0
        lines.append(
            f"The filter ({_filter_text(filters)}) excluded {total - passing} of {total} notes; "
            "broaden it or search without it."
        )
    lines.extend(f"Note: {notice}" for notice in notices)
    return "\n".join(lines)


def _filter_text(filters: Filters) -> str:
    return ", ".join(f"{key}={value}" for key, value in filters.describe().items())
