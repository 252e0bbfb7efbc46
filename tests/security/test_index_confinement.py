"""An index is not trusted to name files: a row whose path leads outside the vault (written by an
attacker with the file or the schema, or by a bug) never makes vaultctx read or return what is
there, on either store. Search shows only what the index itself holds; reading by that path is
refused before any file is opened (docs/security.md; docs/postgres.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.postgres.conftest import location_for
from tests.security.stored_index import STORES, tamper
from vaultctx.api import Vault
from vaultctx.config import Config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.indexer import Indexer
from vaultctx.vault.paths import UnsafePathError

OUTSIDE = "OUTSIDE-THE-VAULT-7f3a"


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.parametrize("escape", ["../outside.md", "/tmp/../{root}/outside.md"])
def test_an_index_row_naming_a_file_outside_the_vault_reads_nothing_there(
    tmp_path: Path, kind: str, escape: str, request: pytest.FixtureRequest
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nthe lighthouse keeper\n")
    (tmp_path / "outside.md").write_text(f"# Out\n\n{OUTSIDE} lighthouse diary\n")
    db = location_for(kind, vault, tmp_path, request)
    Indexer(Config(vault=vault, db=db), StaticEmbedder()).run(fast=True)
    path = escape.format(root=str(tmp_path).lstrip("/"))
    tamper(db, ("UPDATE files SET path = ?", (path,)))
    with Vault(vault, db=db) as handle:
        found = handle.search("lighthouse", mode="bm25").results
        assert found, "the tampered row is still searched: the test reads what it should"
        shown = " ".join(f"{r.text} {r.title} {r.section}" for r in found)
        assert OUTSIDE not in shown and "diary" not in shown
        block = handle.context("lighthouse")
        assert OUTSIDE not in str(block)
        with pytest.raises(UnsafePathError):
            handle.read_note(path)
