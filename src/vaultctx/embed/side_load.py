"""Loading one part of a model in a thread while the caller loads the rest.

A cold query waits for a tokenizer (20-30 ms to build MiniLM's from tokenizer.json) and for
onnxruntime's session over the model's weights (25-90 ms). Creating the session releases the
GIL; building a tokenizer does not (measured: a thread spinning meanwhile keeps 12-40 % of its
speed, docs/benchmarks.md "Cold search, session 14"). So the tokenizer, in a thread, builds
while the session loads on the other core, and the query pays for the longer part only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class SideLoad(Generic[T]):
    """``load()`` running in a daemon thread from construction; ``result()`` waits for it and
    returns its value or raises its exception, in the caller's thread."""

    def __init__(self, load: Callable[[], T], name: str) -> None:
        self._load = load
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._load()
        except BaseException as exc:  # handed to the caller's thread by result()
            self._error = exc

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value
