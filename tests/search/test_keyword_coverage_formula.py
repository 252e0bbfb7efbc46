"""``keyword_coverage`` to the digit on tiny real indexes: each term weighs
log((chunks + 1) / (chunks holding it + 0.5)), and the question is analysed as the index was,
not as this process would analyse it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.index.db import IndexDatabase, open_index
from vaultctx.search.keyword_coverage import keyword_coverage
from vaultctx.text import korean
from vaultctx.text.lexical import ANALYZER_ENV

NOTES = {
    "n1.md": "sqlite journal\n",
    "n2.md": "journal pages\n",
    "n3.md": "journal rows\n",
    "n4.md": "plain words\n",
}
KOREAN_NOTES = {
    "k1.md": "돼지고기 김치찌개를 끓인다\n",
    "k2.md": "자전거 체인을 닦는다\n",
}


def _indexed(root: Path, notes: dict[str, str]) -> Vault:
    (root / "vault").mkdir(parents=True)
    for name, text in notes.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    return vault


def _chunk_of(db: IndexDatabase) -> dict[str, int]:
    return dict(db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id"))


def _weight(chunks: int, holding: int) -> float:
    return math.log((chunks + 1) / (holding + 0.5))


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return _indexed(tmp_path_factory.mktemp("coverage"), NOTES)


def test_each_term_weighs_by_how_many_chunks_hold_it(english: Vault) -> None:
    db = open_index(english.db_path, readonly=True)
    try:
        chunk = _chunk_of(db)
        assert len(chunk) == 4
        # "sqlite" is in one chunk of four, "journal" in three: n2 holds only the common one.
        rare, common = _weight(4, 1), _weight(4, 3)
        covered = keyword_coverage(db, "sqlite journal", chunk["n2.md"])
        assert covered == pytest.approx(common / (rare + common), abs=1e-12)
        assert keyword_coverage(db, "sqlite journal", chunk["n1.md"]) == pytest.approx(1.0)
    finally:
        db.close()


def test_a_common_term_the_chunk_lacks_covers_nothing(english: Vault) -> None:
    db = open_index(english.db_path, readonly=True)
    try:
        # A total weight under 1 (log(5 / 3.5)) is still a total: the chunk holds none of it.
        assert _weight(4, 3) < 1
        assert keyword_coverage(db, "journal", _chunk_of(db)["n4.md"]) == 0.0
    finally:
        db.close()


def test_the_question_is_analysed_as_the_index_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not korean.kiwi_installed():
        pytest.skip("kiwipiepy not installed: this process would split Hangul into bigrams too")
    monkeypatch.setenv(ANALYZER_ENV, "ngram")
    vault = _indexed(tmp_path, KOREAN_NOTES)
    monkeypatch.delenv(ANALYZER_ENV)  # this process now analyses Hangul with Kiwi
    db = open_index(vault.db_path, readonly=True)
    try:
        # Read as bigrams, as indexed, the question is all in k1; as Kiwi's morphemes, in no chunk.
        assert keyword_coverage(db, "돼지고기 김치찌개", _chunk_of(db)["k1.md"]) == 1.0
    finally:
        db.close()


def test_an_index_without_hangul_reads_korean_words_the_cheap_way(english: Vault) -> None:
    db = open_index(english.db_path, readonly=True)
    try:
        # Bigrams: "돼지" "지고" "김치" "치찌", four terms no chunk holds, beside "sqlite" (in n1).
        # Kiwi's morphemes would be two, and weigh half as much against "sqlite".
        rare, absent = _weight(4, 1), _weight(4, 0)
        covered = keyword_coverage(db, "돼지고기 김치찌개 sqlite", _chunk_of(db)["n1.md"])
        assert covered == pytest.approx(rare / (rare + 4 * absent), abs=1e-12)
    finally:
        db.close()
