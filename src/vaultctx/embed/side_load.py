"""Loading one part of a model in a thread while the caller loads the rest.

A cold query waits for a tokenizer (25-35 ms to read tokenizer.json) and for numpy, onnxruntime
and the model's weights (100-250 ms). ``tokenizers`` parses its JSON without holding the GIL,
while imports and onnxruntime's session creation mostly hold it: started first, the tokenizer is
ready by the time the rest is, on a second core, and the query pays for the longer part only.
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
