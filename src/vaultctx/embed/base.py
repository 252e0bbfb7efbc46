"""The one interface every embedding engine implements.

The indexer and the retriever only ever see an ``Embedder``: which engine produced a vector is
recorded through ``model_hash`` so vectors of two models never mix in one index
(docs/reference.md#storage).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    # numpy costs ~0.15 s to import: the indexer, the registry and the retriever import this
    # module, and a no-op index run or a keyword search must not pay for it (tests/test_startup).
    Vectors = Any


def model_hash(name: str, vocab_size: int) -> str:
    """sha256(model name + vocab size)[:16] identifies a model's vector space
    (docs/reference.md#storage)."""
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


def embed_query(engine: Embedder, text: str) -> Vectors:
    """One question's vector. Engines trained with distinct query and passage prefixes (e5) have
    ``embed_queries``; embedding a question as a passage costs them recall."""
    embed = getattr(engine, "embed_queries", engine.embed)
    row: Vectors = embed([text])[0]
    return row


def embedding_input(context: str, text: str) -> str:
    """What an engine sees for a chunk: title and heading path give short sections meaning."""
    return f"{context}\n{text}" if context else text


def quantize_int8(vector: Vectors) -> bytes:
    """int8 bytes for sqlite-vec, scaled per vector so its largest component maps to ±127.

    Cosine similarity ignores a vector's length, so per-vector scaling keeps full int8 precision
    for every vector and costs nothing in ranking; int8 storage makes the index 4× smaller.
    """
    import numpy as np

    peak = float(np.max(np.abs(vector))) if vector.size else 0.0
    if peak == 0.0:
        return np.zeros(vector.shape, dtype=np.int8).tobytes()
    return bytes(np.rint(vector * (127.0 / peak)).astype(np.int8).tobytes())


def quantize_int8_rows(vectors: Vectors) -> list[bytes]:
    """``quantize_int8`` of each row, byte for byte, in a few array operations for the whole
    batch: per-vector numpy calls were ~8 µs a chunk, ~1 s of a 130k-chunk index."""
    import numpy as np

    if len(vectors) == 0:
        return []
    peaks = np.max(np.abs(vectors), axis=1)
    scales = np.zeros(peaks.shape, dtype=np.float32)
    nonzero = peaks > 0
    # As in quantize_int8: 127 / peak in double precision, then rounded to float32 for the
    # float32 product (numpy does the same with a Python float times a float32 array).
    scales[nonzero] = 127.0 / peaks[nonzero].astype(np.float64)
    quantized = np.rint(vectors * scales[:, None]).astype(np.int8)
    return [row.tobytes() for row in quantized]
