"""``bm25_search`` over an index that Kiwi analysed and that holds Hangul: the question is
analysed into Kiwi's morphemes too, never into the bigrams that an index without Hangul gets
(search/bm25.py asks the index whether it holds Hangul). Here the two analyses find different
notes, so a search that took the bigram path would answer with the wrong one."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.bm25 import bm25_search
from vaultctx.text import korean
from vaultctx.text.lexical import ANALYZER_ENV, FTS_ANALYZER_META


def test_a_kiwi_index_holding_hangul_is_searched_with_morphemes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not korean.kiwi_installed():
        pytest.skip("kiwipiepy not installed: no index is analysed by Kiwi here")
    monkeypatch.delenv(ANALYZER_ENV, raising=False)
    vault = tmp_path / "vault"
    vault.mkdir()
    notes = {
        "bicycle.md": "자전거 체인을 닦는다\n",
        # Kiwi keeps 자전 and 전거 as words of their own: the bigrams of 자전거 are in this note.
        "bigrams.md": "전거 자전 이야기\n",
    }
    for name, text in notes.items():
        (vault / name).write_text(text, encoding="utf-8")
    Vault(vault, db=tmp_path / "index.db").index(fast=True)
    db = open_index(tmp_path / "index.db", readonly=True)
    try:
        assert str(db.meta(FTS_ANALYZER_META)).startswith("kiwi-")
        ids = dict(db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id"))
        found = [chunk for chunk, _ in bm25_search(db, "자전거를 닦는다")]
    finally:
        db.close()
    assert found == [ids["bicycle.md"]]
