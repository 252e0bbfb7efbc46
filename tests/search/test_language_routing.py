"""Routing questions by language (search/language_routing.py) on real indexes: tiny English,
Korean and mixed vaults in tmp dirs, real sqlite-vec, the installed multilingual engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.index.db import open_index
from vaultctx.index.schema import MULTI_TABLE
from vaultctx.search.language_routing import route_question

ENGLISH = {
    "Compost.md": "# Compost\n\nTurn the heap weekly; mix kitchen greens with dry leaves.\n",
    "Trains.md": "# Trains\n\nThe night train to Vienna leaves at ten and carries bicycles.\n",
    "Sleep.md": "# Sleep\n\nKeep the bedroom cool and dark; no coffee after two o'clock.\n",
}
KOREAN = {
    "자전거 정비.md": "# 자전거 정비\n\n체인의 기름때는 헌 칫솔로 닦고 마른 뒤 윤활유를 바른다.\n",
    "김치찌개.md": "# 김치찌개\n\n잘 익은 김치와 돼지고기를 참기름에 볶고 두부를 넣어 끓인다.\n",
    "주간 회고.md": "# 주간 회고\n\n금요일 오후에 한 주를 돌아보고 바꿀 한 가지를 적는다.\n",
}


def test_route_sends_each_question_to_the_rankers_that_read_it() -> None:
    english_vault = {"en": 100}
    korean_vault = {"ko": 100}
    mixed = {"en": 60, "ko": 40}
    # English over English: as before multilingual search, nothing else.
    assert route_question("en", english_vault) == route_question("en", {"en": 1})
    route = route_question("en", english_vault)
    assert route.keyword_scale == 1.0 and route.english_vectors and not route.multilingual
    # English over Korean: only the multilingual vectors can read both.
    route = route_question("en", korean_vault)
    assert route.keyword_scale == 0.0 and not route.english_vectors and route.multilingual
    # Korean over Korean: keywords (Kiwi morphemes) and the multilingual vectors.
    route = route_question("ko", korean_vault)
    assert route.keyword_scale == 1.0 and not route.english_vectors and route.multilingual
    # ... the multilingual list adding only chunks not in Korean (none here): BM25 reads those.
    assert route.multilingual_foreign_only
    assert not route_question("en", korean_vault).multilingual_foreign_only
    # Korean over English: keywords cannot read it.
    assert route_question("ko", english_vault).keyword_scale == 0.0
    # English over a mixed vault: everything, the multilingual list for the Korean notes only.
    route = route_question("en", mixed)
    assert route.english_vectors and route.multilingual and route.multilingual_foreign_only
    # A language with under 1 % of the chunks does not count as present.
    assert not route_question("en", {"en": 1000, "ko": 5}).multilingual
    # Latin script in a Korean vault (names, code, product names) does not make it English.
    assert route_question("en", {"en": 7, "ko": 93}).keyword_scale == 0.0


@pytest.fixture(scope="module")
def engine_name() -> str:
    engine = create_multilingual_embedder("auto")
    if engine is None:
        pytest.skip("no multilingual engine installed")
    return engine.name


def _vault(root: Path, notes: dict[str, str], chunks: str = "auto") -> Vault:
    (root / "vault").mkdir(parents=True)
    for name, text in notes.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    config = Config(
        root / "vault", root / "index.db", Settings(quality_engine="", multilingual_chunks=chunks)
    )
    vault = Vault(config=config)
    vault.index()
    return vault


def test_an_english_vault_never_loads_the_multilingual_engine(
    tmp_path: Path, engine_name: str
) -> None:
    vault = _vault(tmp_path, ENGLISH)
    vault.search("compost heap")
    assert not vault._multilingual_checked
    db = open_index(vault.db_path, readonly=True)
    try:
        assert not db.has_table(MULTI_TABLE)
    finally:
        db.close()


def test_an_english_question_finds_the_korean_note(tmp_path: Path, engine_name: str) -> None:
    vault = _vault(tmp_path, KOREAN)
    response = vault.search("how do I clean a bicycle chain", notes=True)
    assert response.results[0].file_path == "자전거 정비.md"
    # Keywords could not read the question: no result came from BM25.
    assert all(result.bm25_rank is None for result in response.results)
    assert vault.search("spicy pork stew with tofu").results[0].file_path == "김치찌개.md"


def test_a_korean_question_finds_the_english_note(tmp_path: Path, engine_name: str) -> None:
    vault = _vault(tmp_path, ENGLISH, chunks="all")
    assert vault.search("야간 기차 여행", notes=True).results[0].file_path == "Trains.md"


def test_a_mixed_vault_keeps_the_english_order_and_adds_korean_notes(
    tmp_path: Path, engine_name: str
) -> None:
    vault = _vault(tmp_path, {**ENGLISH, **KOREAN})
    plain = Vault(config=Config(vault.path, vault.db_path, Settings(multilingual_engine="")))
    for question in ("compost heap leaves", "night train", "cool dark bedroom"):
        routed = [r.file_path for r in vault.search(question, limit=10, notes=True).results]
        before = [r.file_path for r in plain.search(question, limit=10, notes=True).results]
        assert [p for p in routed if p in ENGLISH] == [p for p in before if p in ENGLISH]
    found = vault.search("weekly review on friday", notes=True).results
    assert "주간 회고.md" in [result.file_path for result in found[:2]]


def _multilingual_rows(vault: Vault) -> tuple[int, int]:
    """(multilingual vectors, chunks not in English) of ``vault``'s index."""
    db = open_index(vault.db_path, readonly=True)
    try:
        vectors = int(db.scalar(f"SELECT count(*) FROM {MULTI_TABLE}"))
        foreign = int(db.scalar("SELECT count(*) FROM chunks WHERE lang != 'en'"))
    finally:
        db.close()
    return vectors, foreign


def test_a_few_korean_notes_in_a_large_english_vault_do_not_pay_for_every_english_chunk(
    tmp_path: Path, engine_name: str
) -> None:
    many = {
        f"Note {i}.md": f"# Note {i}\n\nPlain English text about topic number {i} and its plans.\n"
        for i in range(60)
    }
    vault = _vault(tmp_path / "sliver", {**many, "자전거 정비.md": KOREAN["자전거 정비.md"]})
    vectors, foreign = _multilingual_rows(vault)
    assert foreign == 1 and vectors == 1  # the Korean chunk only, not the 60 English ones
    found = vault.search("how do I clean a bicycle chain", notes=True).results
    assert found[0].file_path == "자전거 정비.md"
    # A bilingual vault (half Korean) gets every chunk: Korean questions reach English notes.
    mixed = _vault(tmp_path / "mixed", {**ENGLISH, **KOREAN})
    vectors, foreign = _multilingual_rows(mixed)
    assert foreign == 3 and vectors == 6
