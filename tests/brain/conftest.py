"""Small hand-built vaults for the Second Brain's offline reports: real files, a real index."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault

ON = "[second_brain]\nenabled = true\nlink_threshold = 0.95\nduplicate_threshold = 0.97\n"
# A sentence the static model places far from every other one used here (~0.52 apart).
KUBE = "Kubernetes clusters schedule containers across nodes using the control plane and kubelet agents."
BREAD = "Sourdough bread needs a starter, flour, water and salt, and a long slow fermentation."
TIDES = "Ocean tides rise and fall twice a day because the moon's gravity pulls on the water."
LONG = " ".join(
    ["Filler sentence about nothing in particular, repeated to make the note long."] * 40
)


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger, the review queue's history and the user's settings in tmp."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def indexed_vault(root: Path, notes: Mapping[str, str], config: str = ON) -> Vault:
    vault = make_vault(root / "vault", {"vaultctx.toml": config, **notes})
    handle = Vault(vault, db=root / "index.db")
    handle.index(fast=True)
    return handle
