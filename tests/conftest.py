"""Shared fixtures: real vaults in temp dirs, real SQLite files, the shared data folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = (REPO / ".." / "shared" / "data").resolve()
EXAMPLE_VAULT = REPO / "examples" / "vault"


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data; tests needing it skip with a clear reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    return path


@pytest.fixture
def example_vault(tmp_path: Path) -> Path:
    """A private copy of the bundled example vault, safe to edit."""
    target = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, target, symlinks=True)
    return target
