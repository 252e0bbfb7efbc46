"""The schema's names in index/schema.py agree with what the migrations create."""

from __future__ import annotations

from pathlib import Path

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.index.schema import FTS_TABLE, FTS_TOKENIZER, QUALITY_TABLE, VECTOR_TABLE


def test_recorded_tokenizer_matches_the_table_and_status(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nlighthouse keeper\n")
    with Vault(root, db=tmp_path / "index.db") as vault:
        vault.index()
        db = open_index(vault.db_path, readonly=True)
        try:
            ddl = str(db.scalar("SELECT sql FROM sqlite_master WHERE name = ?", (FTS_TABLE,)))
            assert f"tokenize='{FTS_TOKENIZER}'" in ddl
            assert db.has_table(VECTOR_TABLE) and db.has_table(QUALITY_TABLE)
        finally:
            db.close()
        status = vault.status()
        assert status.fts_tokenizer == FTS_TOKENIZER
        assert status.vectors == status.chunks == status.quality_vectors > 0
