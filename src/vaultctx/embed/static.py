"""The fast engine: a Model2Vec static model, a token-vector lookup and a mean.

It makes a vault searchable in seconds (pass 1); the transformer engine upgrades the vectors
later. model2vec is imported only when the first text is embedded, so the CLI starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vaultctx.embed.base import Vectors, model_hash
from vaultctx.embed.registry import MODELS_DIR, require_model_files

if TYPE_CHECKING:
    from model2vec import StaticModel

BUNDLED_STATIC_DIR = MODELS_DIR / "minilm-static"
BUNDLED_STATIC_NAME = "minilm-static-256"
MODEL2VEC_FILES = ("config.json", "model.safetensors", "tokenizer.json")


@contextmanager
def _hub_offline() -> Iterator[None]:
    """Belt and braces on top of the local-path check: huggingface_hub reads this on import."""
    previous = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if previous is None:
            del os.environ["HF_HUB_OFFLINE"]
        else:
            os.environ["HF_HUB_OFFLINE"] = previous


def _configured_dimension(folder: Path) -> int | None:
    """Model2Vec's config.json states the vector size; None when absent or unreadable."""
    import json

    try:
        value = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("hidden_dim")
    except (OSError, ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, int) else None


class StaticEmbedder:
    """Embeds with the bundled distilled MiniLM (256 dims) or any local Model2Vec folder.

    A text with no known token (empty, whitespace, unknown script) embeds to the zero vector:
    it has no meaning to place, and a zero vector matches nothing instead of matching at random.
    """

    def __init__(self, model_dir: Path | str | None = None, *, name: str | None = None) -> None:
        folder = Path(model_dir) if model_dir is not None else BUNDLED_STATIC_DIR
        self._folder = require_model_files(folder, MODEL2VEC_FILES)
        if name is not None:
            self._name = name
        elif model_dir is None:
            self._name = BUNDLED_STATIC_NAME
        else:
            self._name = f"model2vec-{folder.resolve().name}"
        self._model: StaticModel | None = None
        self._vocab_size: int | None = None
        self._config_dimension = _configured_dimension(self._folder)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        if self._model is None and self._config_dimension is not None:
            return self._config_dimension
        return int(self._loaded().dim)

    @property
    def model_hash(self) -> str:
        """From the tokenizer alone (~0.1 s), not the weights (~0.7 s): a no-op index run and
        a query against an index of another model need only the hash."""
        if self._vocab_size is None:
            if self._model is not None:
                self._vocab_size = int(self._model.tokenizer.get_vocab_size())
            else:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
                self._vocab_size = int(tokenizer.get_vocab_size())
        return model_hash(self._name, self._vocab_size)

    def embed(self, texts: list[str]) -> Vectors:
        """Mean of the token vectors, L2-normalised; texts beyond 512 tokens are truncated."""
        model = self._loaded()
        if not texts:
            return np.zeros((0, model.dim), dtype=np.float32)
        vectors = model.encode(texts, normalize=True)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _loaded(self) -> StaticModel:
        if self._model is None:
            with _hub_offline():
                from model2vec import StaticModel

                self._model = StaticModel.from_pretrained(self._folder, normalize=True)
        return self._model
