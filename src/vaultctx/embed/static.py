"""The fast engine: a Model2Vec static model, a token-vector lookup and a mean.

It makes a vault searchable in seconds (pass 1); the transformer engine upgrades the vectors
later. The model is read with ``tokenizers`` and numpy alone and pooled exactly as Model2Vec's
``StaticModel.encode`` does (a test compares the two): importing model2vec pulled in
huggingface_hub, joblib and tqdm for ~0.57 s of CPU in every process that embeds a query, which
is most of a cold search. model2vec remains the build-time tool that distils the model.

The loaded model (numpy, tokenizers) lives in ``static_model``, imported on the first embedding:
the name, dimension and model hash that a no-op index run checks need neither.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx.embed.base import Vectors, model_hash
from vaultctx.embed.model_files import MODELS_DIR, require_model_files
from vaultctx.embed.side_load import SideLoad

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from vaultctx.embed.static_model import LoadedModel

BUNDLED_STATIC_DIR = MODELS_DIR / "minilm-static"
BUNDLED_STATIC_NAME = "minilm-static-256"
MODEL2VEC_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def _read_config(folder: Path) -> dict[str, Any]:
    try:
        value = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _vocab_size_without_loading(folder: Path) -> int:
    """Model2Vec keeps one vector row per token unless it stores a ``mapping``, so the weights'
    header states the vocabulary size: ~0.1 ms instead of ~22 ms to parse the tokenizer, on
    every no-op index run and every cold query that needs the model hash."""
    from vaultctx.embed.safetensors_file import tensor_shapes

    shapes = tensor_shapes(folder / "model.safetensors")
    if "mapping" not in shapes and "embeddings" in shapes:
        return int(shapes["embeddings"][0])
    from tokenizers import Tokenizer

    return int(Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size())


class StaticEmbedder:
    """Embeds with the bundled distilled MiniLM (256 dims) or any local Model2Vec folder.

    A text with no known token (empty, whitespace, unknown script) embeds to the zero vector:
    it has no meaning to place, and a zero vector matches nothing instead of matching at random.
    """

    # A text's vector depends on that text alone, never on its batch (each text's token rows are
    # summed on their own): an index run may embed a repeated text once (index/vector_memo.py).
    batch_invariant = True

    def __init__(self, model_dir: Path | str | None = None, *, name: str | None = None) -> None:
        folder = Path(model_dir) if model_dir is not None else BUNDLED_STATIC_DIR
        self._folder = require_model_files(folder, MODEL2VEC_FILES)
        if name is not None:
            self._name = name
        elif model_dir is None:
            self._name = BUNDLED_STATIC_NAME
        else:
            self._name = f"model2vec-{folder.resolve().name}"
        self._model: LoadedModel | None = None
        self._vocab_size: int | None = None
        self._config = _read_config(self._folder)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        configured = self._config.get("hidden_dim")
        if self._model is None and isinstance(configured, int):
            return configured
        return int(self._loaded().table.shape[1])

    @property
    def model_hash(self) -> str:
        """From the tokenizer alone (~0.1 s), not the weights: a no-op index run and a query
        against an index of another model need only the hash."""
        if self._vocab_size is None:
            if self._model is not None:
                self._vocab_size = int(self._model.tokenizer.get_vocab_size())
            else:
                self._vocab_size = _vocab_size_without_loading(self._folder)
        return model_hash(self._name, self._vocab_size)

    def embed(self, texts: list[str]) -> Vectors:
        """Mean of the token vectors, L2-normalised; texts beyond 512 tokens are truncated."""
        model = self._loaded()
        if not texts:
            import numpy as np

            return np.zeros((0, model.table.shape[1]), dtype=np.float32)
        return model.embed(texts)

    def _loaded(self) -> LoadedModel:
        if self._model is None:
            # The tokenizer is read in a thread while numpy imports and the weights load
            # (embed/side_load.py).
            tokenizer = SideLoad(self._read_tokenizer, "vaultctx-static-tokenizer")
            try:
                from vaultctx.embed.static_model import LoadedModel

                self._model = LoadedModel(self._folder, self._config, tokenizer.result)
            finally:
                tokenizer.result()  # waited for in any case: no thread outlives a failure
        return self._model

    def _read_tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(self._folder / "tokenizer.json"))
