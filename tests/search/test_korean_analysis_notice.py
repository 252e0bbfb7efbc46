"""A Korean keyword query over an index whose keywords were analysed another way says so, word
for word, and still answers; an English query over the same index says nothing."""

from __future__ import annotations

from pathlib import Path

import apsw

from tests.conftest import make_vault
from vaultctx.api import Vault
from vaultctx.text.lexical import FTS_ANALYZER_META


def test_an_index_without_korean_analysis_tells_a_korean_query(tmp_path: Path) -> None:
    notes = {"a.md": "# 회의록\n\n회의록 정리 compost\n", "b.md": "# Other\n\ncompost heap\n"}
    vault = Vault(make_vault(tmp_path / "vault", notes), db=tmp_path / "index.db")
    vault.index(fast=True)
    vault.close()
    conn = apsw.Connection(str(tmp_path / "index.db"))  # as an index from before Korean analysis
    conn.execute("UPDATE model_meta SET value = 'unicode61' WHERE key = ?", (FTS_ANALYZER_META,))
    conn.close()
    vault = Vault(vault.path, db=tmp_path / "index.db")
    response = vault.search("회의록", mode="bm25")
    assert response.notices == [
        "this index predates Korean-aware keywords: run `vaultctx index` to rebuild them"
    ]
    assert vault.search("compost", mode="bm25").notices == []
