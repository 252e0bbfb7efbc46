"""The question is embedded by every vector source at once (search/query_vectors.py): a cold
search of a Korean vault loads its two transformer models side by side, not one after the other."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest

from vaultctx.search.query_vectors import embedded_side_by_side


def test_the_second_source_embeds_while_the_first_is_still_running() -> None:
    second_started = threading.Event()

    def first(query: str) -> np.ndarray:
        # Returns only once the second source has started: one after the other, it never would.
        assert second_started.wait(timeout=60), "the second source did not start meanwhile"
        return np.array([1.0], dtype=np.float32)

    def second(query: str) -> np.ndarray:
        second_started.set()
        return np.array([2.0], dtype=np.float32)

    vectors = embedded_side_by_side("q", [first, second])
    assert [float(v[0]) for v in vectors] == [1.0, 2.0]


def test_each_source_gets_the_query_and_the_order_is_kept() -> None:
    seen: list[tuple[str, str]] = []

    def embedder(name: str, value: float) -> Callable[[str], np.ndarray]:
        def embed(query: str) -> np.ndarray:
            seen.append((name, query))
            return np.array([value], dtype=np.float32)

        return embed

    embedders = [embedder(n, v) for n, v in (("a", 1.0), ("b", 2.0), ("c", 3.0))]
    vectors = embedded_side_by_side("rotate keys", embedders)
    assert [float(v[0]) for v in vectors] == [1.0, 2.0, 3.0]
    assert sorted(seen) == [("a", "rotate keys"), ("b", "rotate keys"), ("c", "rotate keys")]
    assert embedded_side_by_side("rotate keys", []) == []


@pytest.mark.parametrize("failing", [0, 1])
def test_an_error_of_either_source_reaches_the_caller_after_both_ended(failing: int) -> None:
    ended = threading.Event()

    def fails(query: str) -> np.ndarray:
        raise RuntimeError("model file unreadable")

    def slow(query: str) -> np.ndarray:
        ended.wait(timeout=0.2)
        ended.set()
        return np.array([1.0], dtype=np.float32)

    embeds = [slow, slow]
    embeds[failing] = fails
    with pytest.raises(RuntimeError, match="model file unreadable"):
        embedded_side_by_side("q", embeds)
    assert ended.is_set()  # the other source's thread had ended when the error was raised
