"""Where the bundled engines live, and one place to create an engine by its short name.

Kept free of heavy imports: the CLI imports this to list or pick engines before any model loads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vaultctx.embed.base import Embedder
from vaultctx.errors import VaultctxError

MODELS_DIR = Path(__file__).resolve().parent / "models"


class ModelNotFoundError(VaultctxError):
    """A model folder is missing or incomplete; the message names the folder and what is missing."""

    def __init__(self, folder: Path, missing: list[str]) -> None:
        self.folder = folder
        self.missing = missing
        what = "folder does not exist" if not folder.is_dir() else f"missing {', '.join(missing)}"
        super().__init__(
            f"embedding model not found at {folder} ({what})",
            "point to a complete local model folder, or reinstall vaultctx to restore the bundled "
            "models (developers: run scripts/build_models.py)",
        )


def require_model_files(folder: Path, required: tuple[str, ...]) -> Path:
    """Fail before any library sees the path: Hugging Face loaders treat a missing folder as a
    hub id and would try the network."""
    missing = [name for name in required if not (folder / name).is_file()]
    if missing:
        raise ModelNotFoundError(folder, missing)
    return folder


def _static(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.static import StaticEmbedder

    return StaticEmbedder(model_dir)


def _onnx(model_dir: Path | None) -> Embedder:
    from vaultctx.embed.onnx import OnnxEmbedder

    return OnnxEmbedder(model_dir)


ENGINES: dict[str, Callable[[Path | None], Embedder]] = {"static": _static, "onnx": _onnx}


def create_embedder(engine: str, model_dir: Path | str | None = None) -> Embedder:
    """Build an engine by short name ("static" or "onnx"), from its bundled model by default."""
    try:
        factory = ENGINES[engine]
    except KeyError:
        known = ", ".join(sorted(ENGINES))
        raise ValueError(f"unknown embedding engine {engine!r}; choose one of: {known}") from None
    return factory(Path(model_dir) if model_dir is not None else None)
