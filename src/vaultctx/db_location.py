"""Where a vault's index lives when no ``--db`` or ``DB_PATH`` says: one file per vault in the
user's data folder, so sync tools never copy it.

Apart from ``config`` (which re-exports it) so that the CLI, before it asks a running server,
can name the index without importing the settings machinery (dataclasses, TOML).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import platformdirs

APP_NAME = "vaultctx"


def default_db_path(vault: Path) -> Path:
    """One database per vault in the user's data dir, so sync tools never copy the index."""
    resolved = vault.expanduser().resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", resolved.name).strip("-") or "vault"
    return Path(platformdirs.user_data_dir(APP_NAME)) / f"{slug}-{digest}.db"
