"""One place to create an embedding engine by its short name; ``Vault`` picks engines here.

The bundled engines are registered below; another engine (a remote API, say) registers a factory
with ``register_engine`` and is then chosen by name in ``vaultctx.toml`` (``engine``,
``quality_engine``) without any change to ``Vault``. Kept free of heavy imports: an engine's
module is imported only when the engine is created.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vaultctx.embed.base import Embedder
from vaultctx.embed.model_files import MODELS_DIR, ModelNotFoundError, require_model_files
from vaultctx.errors import VaultctxError

EngineFactory = Callable[[Path | None], Embedder]


class UnknownEngineError(VaultctxError, ValueError):
    """No engine is registered under that name; the suggestion lists the ones that are."""


def _static(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.static import StaticEmbedder

    return StaticEmbedder(model_dir)


def _onnx(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.onnx import OnnxEmbedder

    return OnnxEmbedder(model_dir)


ENGINES: dict[str, EngineFactory] = {"static": _static, "onnx": _onnx}


def register_engine(name: str, factory: EngineFactory) -> None:
    """Make ``factory`` available as the engine ``name`` (replacing one of that name)."""
    ENGINES[name] = factory


def engine_names() -> list[str]:
    return sorted(ENGINES)


def create_embedder(engine: str, model_dir: Path | str | None = None) -> Embedder:
    """Build an engine by short name ("static" or "onnx"), from its bundled model by default."""
    try:
        factory = ENGINES[engine]
    except KeyError:
        known = ", ".join(engine_names())
        raise UnknownEngineError(
            f"unknown embedding engine {engine!r}", f"choose one of: {known}"
        ) from None
    return factory(Path(model_dir) if model_dir is not None else None)


__all__ = [
    "ENGINES",
    "MODELS_DIR",
    "ModelNotFoundError",
    "UnknownEngineError",
    "create_embedder",
    "engine_names",
    "register_engine",
    "require_model_files",
]
