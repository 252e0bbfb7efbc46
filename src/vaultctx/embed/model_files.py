"""Where the bundled models live, and the check that a model folder is complete.

At the bottom of the embedding package: the engines import it, and so does the registry that
creates them, so neither imports the other.
"""

from __future__ import annotations

from pathlib import Path

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
