"""The question embedded by every vector source at once.

A Korean or mixed vault is searched with two transformer models (the English one and the
multilingual one). A cold search loads each on first use, and creating an onnxruntime session
and running a model both release the GIL, so on two cores the second model loads while the first
runs: a cold search waits for the slower model, not for both in turn (docs/benchmarks.md, "Cold
search, session 14"; building a tokenizer holds the GIL, which is why e5 tokenises a cold
question with a tokenizer of its pieces only, embed/query_pieces.py). A warm engine pays one
short-lived thread per extra source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from vaultctx.embed.side_load import SideLoad

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]


def embedded_side_by_side(query: str, embedders: Sequence[Callable[[str], Vector]]) -> list[Vector]:
    """``query`` in each vector source's space (``embedders``, in order); the first runs in the
    caller's thread, each other in a thread of its own. An error of any of them is raised
    here, in the caller's thread, after every thread has ended."""
    if not embedders:
        return []
    if len(embedders) > 1:
        # numpy's first import is not thread-safe (two threads importing it at once can see it
        # half-initialised: "cannot import name '__cpu_features__'"), and every model needs it.
        import numpy  # noqa: F401
    others = [SideLoad(partial(embed, query), "vaultctx-query-vector") for embed in embedders[1:]]
    try:
        first = embedders[0](query)
    finally:
        rest = [_outcome(other) for other in others]
    return [first, *(_raised_or_value(outcome) for outcome in rest)]


def _outcome(load: SideLoad[Vector]) -> tuple[Vector | None, BaseException | None]:
    try:
        return load.result(), None
    except BaseException as error:  # re-raised by _raised_or_value, once every thread ended
        return None, error


def _raised_or_value(outcome: tuple[Vector | None, BaseException | None]) -> Vector:
    value, error = outcome
    if error is not None:
        raise error
    assert value is not None
    return value
