"""A Korean question that says in other words what a Korean note says is found by meaning
(search/keyword_coverage.py, language_routing.meaning_weight), while a Korean question that
reuses a note's words keeps BM25's ranking exactly. Real index, real sqlite-vec, the bundled
multilingual engine, a tiny Korean vault in a tmp dir."""

from __future__ import annotations

import pytest

from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.embed.registry import create_multilingual_embedder
from vaultctx.index.db import open_index
from vaultctx.search.keyword_coverage import keyword_coverage
from vaultctx.search.language_routing import meaning_weight
from vaultctx.search.ranking_constants import KEYWORD_COVERAGE_TRUSTED, MEANING_WHEN_KEYWORDS_MISS

NOTES = {
    "자전거 정비.md": "# 자전거 정비\n\n체인의 기름때는 헌 칫솔로 닦고 마른 뒤 윤활유를 바른다.\n",
    "김치찌개.md": "# 김치찌개\n\n잘 익은 김치와 돼지고기를 참기름에 볶고 두부를 넣어 끓인다.\n",
    "주간 회고.md": "# 주간 회고\n\n금요일 오후에 한 주를 돌아보고 바꿀 한 가지를 적는다.\n",
    "장보기.md": "# 장보기\n\n주말에 시장에서 채소와 과일을 산다. 목록을 미리 적어 가면 덜 산다.\n",
    "독서 목록.md": "# 독서 목록\n\n올해 읽을 책과 다 읽은 책을 적어 둔다.\n",
}
# "A two-wheeler's chain got dirty: how to look after it", sharing no word with the answer.
CONCEPTUAL = "두 바퀴 탈것의 사슬이 더러워졌을 때 손질하는 법"


def test_meaning_counts_more_the_less_bm25_matched() -> None:
    assert meaning_weight(0.0) == MEANING_WHEN_KEYWORDS_MISS
    assert meaning_weight(KEYWORD_COVERAGE_TRUSTED) == 0.0
    assert meaning_weight(1.0) == 0.0
    weights = [meaning_weight(c / 10) for c in range(11)]
    assert weights == sorted(weights, reverse=True)
    assert 0 < meaning_weight(KEYWORD_COVERAGE_TRUSTED / 2) < MEANING_WHEN_KEYWORDS_MISS


@pytest.fixture(scope="module")
def korean_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    if create_multilingual_embedder("auto") is None:
        pytest.skip("no multilingual engine installed")
    root = tmp_path_factory.mktemp("korean-concepts")
    (root / "vault").mkdir()
    for name, text in NOTES.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    vault = Vault(config=Config(root / "vault", root / "index.db", Settings(quality_engine="")))
    vault.index()
    return vault


def test_a_conceptual_korean_question_is_found_by_meaning(korean_vault: Vault) -> None:
    keywords = korean_vault.search(CONCEPTUAL, notes=True, mode="bm25").results
    # BM25 alone ranks a note that shares a common morpheme, not the answer.
    assert keywords and keywords[0].file_path != "자전거 정비.md"
    results = korean_vault.search(CONCEPTUAL, notes=True).results
    assert results[0].file_path == "자전거 정비.md"
    assert results[0].bm25_rank is None and results[0].vec_rank == 1


def test_a_korean_question_in_the_notes_words_keeps_bm25s_ranking(korean_vault: Vault) -> None:
    question = "돼지고기 김치 두부"
    hybrid = korean_vault.search(question, notes=True).results
    keywords = korean_vault.search(question, notes=True, mode="bm25").results
    assert [r.file_path for r in hybrid] == [r.file_path for r in keywords]
    assert hybrid[0].file_path == "김치찌개.md"
    assert all(result.vec_rank is None for result in hybrid)


def test_coverage_weighs_each_term_by_how_rare_it_is(korean_vault: Vault) -> None:
    db = open_index(korean_vault.db_path, readonly=True)
    try:
        chunks = dict(
            db.execute("SELECT f.path, c.id FROM chunks c JOIN files f ON f.id = c.file_id")
        )
        kimchi = chunks["김치찌개.md"]
        assert keyword_coverage(db, "돼지고기 김치", kimchi) == pytest.approx(1.0)
        assert keyword_coverage(db, "자전거 체인", kimchi) == 0.0
        half = keyword_coverage(db, "돼지고기 자전거", kimchi)
        assert half is not None and 0.0 < half < 1.0
        assert keyword_coverage(db, CONCEPTUAL, None) == 0.0  # BM25 found nothing
    finally:
        db.close()
