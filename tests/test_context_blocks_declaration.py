"""A cached context block is rebuilt as soon as any part of its declaration changes: its query, its
token budget or its TTL. The old text is never served for the new declaration."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.context_blocks import get_block

DECLARED = '[blocks.focus]\nquery = "deploy rollback runbook"\nmax_tokens = 400\nttl_hours = 2\n'


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "runbook.md").write_text(
        "# Runbook\n\n## Rollback\nTo roll back a deploy, run the rollback job.\n"
    )
    (folder / "garden.md").write_text(
        "# Garden\n\n## Seedlings\nTomato seedlings need light fourteen hours a day.\n"
    )
    (folder / "vaultctx.toml").write_text(DECLARED)
    handle = Vault(folder, db=tmp_path / "index.db")
    handle.index(fast=True)
    return handle


def block_after_redeclaring(vault: Vault, old: str, new: str) -> tuple[str, str, float, bool]:
    toml = vault.path / "vaultctx.toml"
    files = [toml]
    first = get_block(vault.config, vault.context, "focus", files=files, now=1000.0)
    assert (
        not first.cached
        and get_block(vault.config, vault.context, "focus", files=files, now=1001.0).cached
    )
    toml.write_text(DECLARED.replace(old, new))
    block = get_block(vault.config, vault.context, "focus", files=files, now=1002.0)
    return block.query, block.markdown, block.expires_at, block.cached


def test_a_changed_query_rebuilds_the_block(vault: Vault) -> None:
    query, markdown, _, cached = block_after_redeclaring(
        vault, "deploy rollback runbook", "tomato seedlings"
    )
    assert not cached
    assert query == "tomato seedlings"
    assert "Tomato seedlings need light" in markdown.split("Sources:")[0]


def test_a_changed_ttl_rebuilds_the_block(vault: Vault) -> None:
    _, _, expires_at, cached = block_after_redeclaring(vault, "ttl_hours = 2", "ttl_hours = 3")
    assert not cached
    assert expires_at == 1002.0 + 3 * 3600
