"""Korean compound nouns through the real indexer and search: kept whole beside their parts, and
indexes analysed before that re-analysed once (text/korean.py, text/lexical.py)."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from vaultctx.api import Vault
from vaultctx.index.hangul import HANGUL_META
from vaultctx.text import korean, lexical
from vaultctx.text.lexical import ANALYZER_ENV

pytestmark = pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed")

NOTES = {
    # Names the compound once, in a longer note.
    "전환 가이드.md": "# 전환 가이드\n\n시중은행으로 전환하려는 은행은 인가 절차와 심사 기간을 "
    "미리 확인하고, 필요한 서류를 갖추어 신청합니다.\n",
    # Holds both parts, apart and more often, in a short note: what the parts alone rank first.
    "시장 동향.md": "# 시장 동향\n\n시중 자금이 은행 예금으로 몰리고, 시중 금리와 은행 대출이 "
    "함께 움직였다.\n",
    "볼트 관리.md": "# 관리\n\n볼트를 여러 개 만들고 다른 볼트로 전환하는 방법을 설명합니다.\n",
    "sync.md": "# Sync 켜기\n\n여러 기기에서 노트를 동기화하려면 설정에서 Sync를 켜세요.\n",
    "keys.md": "# Key rotation\n\nRotate the deploy API keys every ninety days.\n",
    "garden.md": "# Garden\n\nTomatoes need sun, water and a stake against the wind.\n",
}
QUESTION = "시중은행이란 무엇인가요?"


@pytest.fixture(autouse=True)
def _kiwi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "kiwi")
    korean.content_morphemes.cache_clear()


def _vault(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    root.mkdir()
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    return Vault(root, db=tmp_path / "index.db")


def _ranked(vault: Vault, query: str) -> list[str]:
    return [r.file_path for r in vault.search(query, limit=3, notes=True, mode="bm25").results]


def _as_before_compounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Analysis as it was before compounds were kept whole: no tag starts a compound."""
    monkeypatch.setattr(korean, "_NOUN_TAG", "no noun")
    monkeypatch.setattr(lexical, "_KIWI_SCHEME", "v1")
    korean.content_morphemes.cache_clear()


def test_a_question_naming_a_compound_finds_the_note_that_uses_it(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    vault.index(fast=True)
    assert _ranked(vault, QUESTION)[:2] == ["전환 가이드.md", "시장 동향.md"]


def test_the_parts_alone_rank_the_other_note_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The case the whole compound is for: the same question over the older analysis."""
    _as_before_compounds(monkeypatch)
    vault = _vault(tmp_path)
    vault.index(fast=True)
    assert _ranked(vault, QUESTION)[0] == "시장 동향.md"


def test_an_index_analysed_before_compounds_is_reanalysed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as before:
        _as_before_compounds(before)
        _vault(tmp_path).index(fast=True)
    korean.content_morphemes.cache_clear()
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    response = vault.search(QUESTION, limit=3, notes=True, mode="bm25")
    assert any("`vaultctx index` updates them" in n for n in response.notices)

    report = vault.index(fast=True)
    assert any("text analysis changed" in w and "/v2" in w for w in report.warnings)
    assert report.chunks_written == 0  # only the keyword side is redone
    assert _ranked(vault, QUESTION)[0] == "전환 가이드.md"
    assert not vault.search(QUESTION, limit=3, notes=True, mode="bm25").notices
    assert not any("text analysis" in w for w in vault.index(fast=True).warnings)


@pytest.mark.parametrize("hangul_record", ["0", None])
def test_an_index_without_korean_is_not_reanalysed_for_a_korean_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hangul_record: str | None
) -> None:
    """English (and kana) rows are the same under either Korean analysis: an index known to hold
    no Hangul only records the new analysis. One without that record is re-analysed, as before."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "keys.md").write_text(NOTES["keys.md"], encoding="utf-8")
    (root / "garden.md").write_text(NOTES["garden.md"], encoding="utf-8")
    (root / "東京.md").write_text("# 天気\n\n東京都の天気は晴れです\n", encoding="utf-8")
    with monkeypatch.context() as before:
        _as_before_compounds(before)
        old = Vault(root, db=tmp_path / "index.db")
        old.index(fast=True)
        was = _ranked(old, "rotate keys 東京")
        old_id = old.status().fts_analyzer
        old.close()
    korean.content_morphemes.cache_clear()
    if hangul_record is None:
        conn = apsw.Connection(str(tmp_path / "index.db"))
        conn.execute("DELETE FROM model_meta WHERE key = ?", (HANGUL_META,))
        conn.close()
    vault = Vault(root, db=tmp_path / "index.db")
    report = vault.index(fast=True)
    rebuilt = [w for w in report.warnings if "text analysis changed" in w]
    assert bool(rebuilt) == (hangul_record is None)
    assert old_id != vault.status().fts_analyzer == lexical.analyzer_id()
    assert _ranked(vault, "rotate keys 東京") == was
