"""One place to create an embedding engine by its name; ``Vault`` picks engines here.

The bundled engines are registered below by short name (``static``, ``onnx``, and
``e5-multilingual`` for Korean/CJK and cross-language search: its ``embed_queries`` adds e5's
query prefix, so a caller that embeds questions should prefer it when the engine has it). A name
with a colon, ``provider:model`` (``openai:text-embedding-3-small``; split at the first colon, so
``bedrock:amazon.titan-embed-text-v2:0`` keeps its own), is a remote engine: the provider is
looked up in the ``vaultctx.engines`` entry-point group, whose factory takes the model name. The
four remote providers are declared in pyproject.toml and live in the agent package, which this layer
never imports; a plug-in package can add more the same way. Kept free of heavy imports: an
engine's module is imported only when the engine is created.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vaultctx.embed.base import Embedder
from vaultctx.embed.model_files import MODELS_DIR, ModelNotFoundError, require_model_files
from vaultctx.errors import VaultctxError

EngineFactory = Callable[[Path | None], Embedder]
# A remote engine's factory, found by provider name in this entry-point group: model name in.
ENGINE_GROUP = "vaultctx.engines"
RemoteEngineFactory = Callable[[str], Embedder]
REMOTE_EXTRA = "pip install 'vaultctx[agent]'"


class UnknownEngineError(VaultctxError, ValueError):
    """No engine is registered under that name; the suggestion lists the ones that are."""


def _static(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.static import StaticEmbedder

    return StaticEmbedder(model_dir)


def _onnx(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.onnx import OnnxEmbedder

    return OnnxEmbedder(model_dir)


def _e5_multilingual(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.e5 import E5Embedder

    return E5Embedder(model_dir)


ENGINES: dict[str, EngineFactory] = {
    "static": _static,
    "onnx": _onnx,
    "e5-multilingual": _e5_multilingual,
}
# Engines that read any language, best first: ``multilingual_engine = "auto"`` takes the first
# one available.
MULTILINGUAL_ENGINES = ("e5-multilingual",)


def register_engine(name: str, factory: EngineFactory) -> None:
    """Make ``factory`` available as the engine ``name`` (replacing one of that name)."""
    ENGINES[name] = factory


def engine_names() -> list[str]:
    return sorted(ENGINES)


def create_embedder(engine: str, model_dir: Path | str | None = None) -> Embedder:
    """Build an engine by short name ("static" or "onnx"), from its bundled model by default, or
    a remote one by ``provider:model``."""
    if ":" in engine:
        return _create_remote(engine)
    try:
        factory = ENGINES[engine]
    except KeyError:
        known = ", ".join(engine_names())
        raise UnknownEngineError(
            f"unknown embedding engine {engine!r}",
            f"choose one of: {known}, or a remote engine as provider:model "
            "(e.g. openai:text-embedding-3-small)",
        ) from None
    return factory(Path(model_dir) if model_dir is not None else None)


def create_multilingual_embedder(name: str) -> Embedder | None:
    """The multilingual engine ``name``; with "auto" the first of ``MULTILINGUAL_ENGINES`` that
    is registered and installed. None for "" or when none is installed."""
    if not name:
        return None
    if name != "auto":
        return create_embedder(name)
    for candidate in MULTILINGUAL_ENGINES:
        if candidate not in ENGINES:
            continue
        try:
            return create_embedder(candidate)
        except (ImportError, ModelNotFoundError):
            continue
    return None


def _create_remote(name: str) -> Embedder:
    from importlib.metadata import entry_points

    provider, _, model = name.partition(":")
    if not provider or not model:
        raise UnknownEngineError(
            f"embedding engine {name!r} names no {'provider' if model else 'model'}",
            "write it as provider:model, e.g. openai:text-embedding-3-small",
        )
    found = list(entry_points(group=ENGINE_GROUP, name=provider))
    if not found:
        installed = sorted({point.name for point in entry_points(group=ENGINE_GROUP)})
        choices = f"one of: {', '.join(installed)}" if installed else f"run: {REMOTE_EXTRA}"
        raise UnknownEngineError(f"no remote embedding engine {provider!r} is installed", choices)
    try:
        factory: RemoteEngineFactory = found[0].load()
        return factory(model)
    except ImportError as exc:
        raise UnknownEngineError(
            f"the {provider} embedding engine needs a package that is not installed "
            f"({exc.name or exc})",
            f"run: {REMOTE_EXTRA}",
        ) from exc


__all__ = [
    "ENGINES",
    "ENGINE_GROUP",
    "MODELS_DIR",
    "MULTILINGUAL_ENGINES",
    "ModelNotFoundError",
    "UnknownEngineError",
    "create_embedder",
    "create_multilingual_embedder",
    "engine_names",
    "register_engine",
    "require_model_files",
]
