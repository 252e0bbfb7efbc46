"""Each extra vector source embeds the question in a thread of its own, named for what it does
(``vaultctx-query-vector`` in a thread dump or a profiler), the first in the caller's thread."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from vaultctx.search.query_vectors import embedded_side_by_side


def test_the_threads_are_named_and_the_first_source_stays_in_the_caller() -> None:
    names: dict[str, str] = {}

    def embedder(source: str) -> Callable[[str], np.ndarray]:
        def embed(query: str) -> np.ndarray:
            names[source] = threading.current_thread().name
            return np.array([1.0], dtype=np.float32)

        return embed

    embedded_side_by_side("q", [embedder("a"), embedder("b"), embedder("c")])
    assert names == {
        "a": threading.current_thread().name,
        "b": "vaultctx-query-vector",
        "c": "vaultctx-query-vector",
    }
