"""Vaults for the Second Brain's tests: a small one with it turned on, indexed for real, with a
scripted TextModel (synthesis, wiki); hand-built ones for the offline reports; real files, a real
index."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx
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
# The reports' vaults: thresholds set for these few notes.
REPORTS_ON = "[second_brain]\nenabled = true\nlink_threshold = 0.95\nduplicate_threshold = 0.97\n"
# A sentence the static model places far from every other one used here (~0.52 apart).
KUBE = (
    "Kubernetes clusters schedule containers across nodes using the control plane and kubelet "
    "agents."
)
BREAD = "Sourdough bread needs a starter, flour, water and salt, and a long slow fermentation."
TIDES = "Ocean tides rise and fall twice a day because the moon's gravity pulls on the water."
LONG = " ".join(
    ["Filler sentence about nothing in particular, repeated to make the note long."] * 40
)


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
    """The ledger, the review queue's history and the user's settings in tmp."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return brain_vault(tmp_path)


def indexed_vault(root: Path, notes: Mapping[str, str], config: str = REPORTS_ON) -> Vault:
    vault = make_vault(root / "vault", {"vaultctx.toml": config, **notes})
    handle = Vault(vault, db=root / "index.db")
    handle.index(fast=True)
    return handle


def run_cli(
    tmp_path: Path, vault: Vault, *args: str, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """``vaultctx ARGS --vault V --db D`` with private user dirs: in this process, as a child
    would run it, or (``process``) as a real one."""
    env = clean_cli_env(tmp_path)
    words = [*args, "--vault", str(vault.path), "--db", str(vault.db_path)]
    if not process:
        return run_vaultctx(words, env=env)
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *words],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        path.relative_to(root).as_posix(): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }
