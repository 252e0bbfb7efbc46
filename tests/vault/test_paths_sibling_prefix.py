"""Confinement compares whole path components: a sibling folder whose name merely starts with the
vault's name (``notes-evil`` beside ``notes``) is outside the vault, however a link reaches it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.vault.paths import (
    UnsafePathError,
    VaultAccessError,
    is_vault_folder,
    resolve_indexed_file,
    resolve_vault_file,
)
from vaultctx.vault.scanner import load_ignore_rules

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")

SECRET = "SIBLING-SECRET-5e1f"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """``notes`` holds links into ``notes-evil``, a folder beside it sharing its name's prefix."""
    notes, evil = tmp_path / "notes", tmp_path / "notes-evil"
    notes.mkdir()
    evil.mkdir()
    (notes / "inside.md").write_text("# Inside\n\nThe lighthouse log.\n")
    (evil / "secret.md").write_text(f"# Secret\n\n{SECRET} lighthouse.\n")
    (notes / "leak.md").symlink_to(evil / "secret.md")
    (notes / "evil").symlink_to(evil, target_is_directory=True)
    return notes


@pytest.mark.parametrize("raw", ["leak.md", "evil/secret.md"])
def test_a_link_into_a_same_prefix_sibling_is_refused(vault: Path, raw: str) -> None:
    rules = load_ignore_rules(vault)[0]
    for resolve in (resolve_vault_file, resolve_indexed_file):
        with pytest.raises(UnsafePathError) as refused:
            resolve(vault, raw, rules)
        assert refused.value.reason == "leads outside the vault through a symbolic link"


def test_the_sibling_is_not_a_vault_folder(vault: Path) -> None:
    assert not is_vault_folder(vault, "evil")
    assert (
        resolve_vault_file(vault, "inside.md", load_ignore_rules(vault)[0]).absolute
        == (vault / "inside.md").resolve()
    )


def test_the_sibling_is_neither_indexed_nor_read(vault: Path, tmp_path: Path) -> None:
    with Vault(vault, db=tmp_path / "index.db") as handle:
        handle.index(fast=True)
        assert {r.file_path for r in handle.search(SECRET, mode="bm25").results} == set()
        assert {n.path for n in handle.list_notes(limit=100).notes} == {"inside.md"}
        for raw in ("leak.md", "evil/secret.md"):
            with pytest.raises(VaultAccessError):
                handle.read_note(raw)
