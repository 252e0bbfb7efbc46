"""A small vault with the Second Brain turned on, indexed for real, and a scripted TextModel."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.ledger.context import ChangeContext

NOTES = {
    "Compost.md": "# Compost\n\nCompost needs greens and browns. Turn the pile weekly.\n",
    "Garden.md": "# Garden\n\nThe garden beds get compost from the pile every spring.\n",
    "Trips/Lisbon.md": "# Lisbon\n\nTrams, tiles and custard tarts.\n",
}
ON = "[second_brain]\nenabled = true\n"
CHANGE = ChangeContext("test", source="cli")


class ScriptedText:
    """The ``TextModel`` protocol answering from a list, keeping what it was asked (the brain
    layer takes any TextModel; the CLI tests run the real one against the wire fake)."""

    name = "scripted"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.prompts: list[tuple[str, str, int]] = []

    async def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        self.prompts.append((system, prompt, max_tokens))
        return self.replies.pop(0)


def brain_vault(root: Path, *, enabled: bool = True, indexed: bool = True) -> Vault:
    notes = dict(NOTES)
    if enabled:
        notes["vaultctx.toml"] = ON
    vault = Vault(make_vault(root / "vault", notes), db=root / "index.db")
    if indexed:
        vault.index(fast=True)
    return vault


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger and the user's vaultctx.toml in the test's own folders."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return brain_vault(tmp_path)
