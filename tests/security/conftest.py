"""Fixtures several promises share. A module's own fixture of the same name wins over these
(pytest's rule), so a test file with a vault of its own keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.embed.static import StaticEmbedder


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    """The bundled static model, loaded once per test module."""
    return StaticEmbedder()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault of one note, for promises about the index rather than about notes."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "plan.md").write_text("# Plan\n\nShip the lighthouse keeper's log.\n")
    return root
