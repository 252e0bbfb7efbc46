"""Vaults in tmp with a private user data dir, so the ledger never lands in the real one."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext

NOTES = {
    "10-projects/Plan.md": "# Plan\n\n## Goals\nShip the ledger.\n",
    "10-projects/Budget.md": "# Budget\n\nSee [[Plan]] and [[10-projects/Plan#Goals|the goals]].\n",
    "20-areas/Review.md": "# Review\n\n![[Plan]] and [the plan](../10-projects/Plan.md).\n",
    "Inbox.md": "# Inbox\n\nNothing links here.\n",
}

AGENT = ChangeContext("test change", conversation_id="c-1")


def isolate_data_dir(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(folder / name))
    monkeypatch.delenv("VAULT_PATH", raising=False)
    monkeypatch.delenv("DB_PATH", raising=False)
    return folder / "vaultctx"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_data_dir(tmp_path / "data", monkeypatch)


@pytest.fixture
def vault_dir(tmp_path: Path, data_dir: Path) -> Path:
    return make_vault(tmp_path / "vault", NOTES)


@pytest.fixture
def vault(vault_dir: Path, tmp_path: Path) -> Vault:
    """A vault without an index: changes are not re-indexed, which keeps these tests fast."""
    return Vault(vault_dir, db=tmp_path / "index.db")


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``root``, by relative path."""
    found: dict[str, bytes | None] = {}
    for folder, folders, files in os.walk(root):
        for name in folders:
            found[os.path.relpath(os.path.join(folder, name), root)] = None
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found
