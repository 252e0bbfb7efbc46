"""The one interface every embedding engine implements.

The indexer and the retriever only ever see an ``Embedder``: which engine produced a vector is
recorded through ``model_hash`` so vectors of two models never mix in one index (SPEC §4).
"""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


def model_hash(name: str, vocab_size: int) -> str:
    """SPEC §4: sha256(model name + vocab size)[:16] identifies a model's vector space."""
    return hashlib.sha256(f"{name}{vocab_size}".encode()).hexdigest()[:16]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    @property
    def model_hash(self) -> str: ...

    def embed(self, texts: list[str]) -> Vectors:
        """Embed a batch; returns shape (len(texts), dimension), rows L2-normalised."""
        ...


def embedding_input(context: str, text: str) -> str:
    """What an engine sees for a chunk: title and heading path give short sections meaning."""
    return f"{context}\n{text}" if context else text
