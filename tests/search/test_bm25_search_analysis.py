"""``bm25_search`` analyses the question as the index was analysed, on a real index: an index built
with Hangul bigrams is searched with bigrams from a process that would use Kiwi, and an index
holding no Hangul never makes the question pay for loading Kiwi."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.index.db import open_index
from vaultctx.search.bm25 import bm25_search
from vaultctx.text import korean
from vaultctx.text.lexical import ANALYZER_ENV


def _indexed(root: Path, notes: dict[str, str]) -> Path:
    (root / "vault").mkdir(parents=True)
    for name, text in notes.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    Vault(root / "vault", db=root / "index.db").index(fast=True)
    return root / "index.db"


def _chunk_ids(db_path: Path) -> dict[str, int]:
    db = open_index(db_path, readonly=True)
    try:
        return dict(
            db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id")
        )
    finally:
        db.close()


def test_a_bigram_index_is_searched_with_bigrams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not korean.kiwi_installed():
        pytest.skip("kiwipiepy not installed: this process would split Hangul into bigrams too")
    monkeypatch.setenv(ANALYZER_ENV, "ngram")
    db_path = _indexed(
        tmp_path, {"k1.md": "돼지고기 김치찌개를 끓인다\n", "k2.md": "자전거 체인을 닦는다\n"}
    )
    monkeypatch.delenv(ANALYZER_ENV)  # this process now analyses Hangul with Kiwi
    db = open_index(db_path, readonly=True)
    try:
        found = [chunk for chunk, _ in bm25_search(db, "돼지고기 김치찌개")]
    finally:
        db.close()
    # Kiwi's morphemes are in no chunk of a bigram index: only the index's own analysis finds k1.
    assert found == [_chunk_ids(db_path)["k1.md"]]


def test_an_index_without_hangul_never_loads_kiwi_for_a_korean_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = _indexed(tmp_path, {"n1.md": "sqlite journal\n", "n2.md": "plain words\n"})

    def no_kiwi() -> None:
        raise AssertionError("Kiwi loaded for an index that holds no Hangul")

    monkeypatch.setattr(korean, "_load_kiwi", no_kiwi)
    db = open_index(db_path, readonly=True)
    try:
        # A question no earlier test analysed (content_morphemes keeps 4,096 answers).
        found = [chunk for chunk, _ in bm25_search(db, "자전거바퀴살 조이기 sqlite")]
    finally:
        db.close()
    assert found == [_chunk_ids(db_path)["n1.md"]]
