"""One search request: what to look for and how, checked once, when it is built.

The CLI, the MCP server, the hooks and the Python API all build a ``SearchRequest`` and hand it to
``Vault.search`` (or ``Retriever.search``); none of them checks a mode, a fusion or a depth itself.
An invalid request raises ``InvalidSearchError`` (an invalid filter, ``InvalidFilterError``),
whose suggestion is the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters
from vaultctx.search.ranking_constants import BM25_WEIGHT, DEFAULT_DEPTH, KEYWORD_WEIGHT, MAX_DEPTH

Mode = Literal["hybrid", "bm25", "vector"]
Fusion = Literal["score", "rrf"]
MODES: tuple[Mode, ...] = ("hybrid", "bm25", "vector")
FUSIONS: tuple[Fusion, ...] = ("score", "rrf")


class InvalidSearchError(VaultctxError, ValueError):
    """A search request that cannot run; also a ``ValueError``, as an invalid argument is."""


@dataclass(frozen=True)
class Weights:
    """How much each ranked list counts when the lists are fused; None: its measured weight.

    ``bm25`` weighs the keyword list (measured: 1.0; 0.5 in a graph search); ``vector`` every
    vector list (measured per model), or in a graph search the graph list (1.0): the measured
    ones are ``ranking_constants``'.
    """

    bm25: float | None = None
    vector: float | None = None

    def __post_init__(self) -> None:
        for name, weight in (("bm25", self.bm25), ("vector", self.vector)):
            if weight is not None and not (math.isfinite(weight) and weight >= 0):
                raise InvalidSearchError(
                    f"the {name} weight {weight!r} is not a number of 0 or more",
                    "give a weight such as 0.5 or 1.0 (0 keeps the list's ranks out of the score)",
                )

    def keyword(self, *, graph: bool) -> float:
        if self.bm25 is not None:
            return self.bm25
        return KEYWORD_WEIGHT if graph else BM25_WEIGHT

    def vectors(self, measured: float) -> float:
        """The weight of a vector list (or the graph list) whose measured weight is ``measured``."""
        return measured if self.vector is None else self.vector


@dataclass(frozen=True)
class SearchRequest:
    """What to look for, how many results, within what token budget, ranked how.

    ``limit`` results (passages, or notes with ``notes``) whose texts together fit ``max_tokens``;
    ``mode`` picks the rankers; ``fusion`` how their lists combine (None: ``score``, the measured
    default, or ``rrf`` in a graph search, which was measured with it); ``graph`` widens the
    vector hits along the notes' links to ``depth`` (0–3) links; ``filters`` choose the notes
    before ranking.
    """

    query: str
    limit: int = 10
    max_tokens: int = 4000
    mode: Mode = "hybrid"
    weights: Weights = field(default_factory=Weights)
    fusion: Fusion | None = None
    notes: bool = False
    filters: Filters = field(default_factory=Filters)
    graph: bool = False
    depth: int = DEFAULT_DEPTH

    def __post_init__(self) -> None:
        if not isinstance(self.query, str) or not self.query.strip():
            raise InvalidSearchError(
                "the search query is empty", "give the words to look for, e.g. `compost`"
            )
        _check_at_least_one("limit", self.limit, "results to return, e.g. 10")
        _check_at_least_one("max_tokens", self.max_tokens, "tokens of text, e.g. 4000")
        _check_choice("mode", self.mode, MODES)
        if self.fusion is not None:
            _check_choice("fusion", self.fusion, FUSIONS)
        if isinstance(self.depth, bool) or not isinstance(self.depth, int):
            raise InvalidSearchError(f"graph depth {self.depth!r} is not a whole number", _DEPTHS)
        if not 0 <= self.depth <= MAX_DEPTH:
            raise InvalidSearchError(
                f"graph depth must be 0 to {MAX_DEPTH} links (got {self.depth})", _DEPTHS
            )


_DEPTHS = f"give the number of links to follow, 0 to {MAX_DEPTH} (1 is the default)"


def _check_at_least_one(name: str, value: object, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidSearchError(f"{name} must be at least 1 (got {value!r})", f"give the {what}")


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InvalidSearchError(f"unknown {name} {value!r}", f"use one of: {', '.join(choices)}")
