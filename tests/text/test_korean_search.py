"""Korean notes through the real indexer and the public API, with Kiwi and with the fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultctx.api import Vault
from vaultctx.text import korean
from vaultctx.text.lexical import ANALYZER_ENV

NOTES = {
    "볼트 관리.md": "# 관리\n\n볼트를 여러 개 만들고 다른 볼트로 전환하는 방법을 설명합니다.\n",
    "sync.md": "# Sync 켜기\n\n여러 기기에서 노트를 동기화하려면 설정에서 Sync를 켜세요.\n",
    "잠금.md": "# SQLite 잠금\n\n쓰기 중에는 SQLITE_LOCKED 오류가 납니다. Wait for the writer.\n",
    "keys.md": "# Key rotation\n\nRotate the deploy API keys every ninety days.\n",
    "garden.md": "# Garden\n\nTomatoes need sun, water and a stake against the wind.\n",
}
QUESTIONS = {
    # No word of these two occurs in its note as typed, only their stems (볼트, 전환; 기기, 동기화).
    "볼트끼리 전환하려면 어떻게 하나요?": "볼트 관리.md",
    "기기 간 동기화": "sync.md",
    "SQLITE_LOCKED 오류가 뭐예요": "잠금.md",
    "rotating keys": "keys.md",
}
needs_kiwi = pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed")


def _vault(tmp_path: Path) -> Vault:
    root = tmp_path / "vault"
    root.mkdir(parents=True)
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    return Vault(root, db=tmp_path / "index.db")


def _top(vault: Vault, query: str) -> tuple[str, list[str]]:
    response = vault.search(query, limit=3, notes=True)
    assert response.results, query
    return response.results[0].file_path, response.notices


@pytest.mark.parametrize("analyzer", [pytest.param("kiwi", marks=needs_kiwi), "ngram"])
def test_korean_questions_find_their_notes(
    analyzer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ANALYZER_ENV, analyzer)
    vault = _vault(tmp_path)
    vault.index(fast=True)
    for question, note in QUESTIONS.items():
        top, notices = _top(vault, question)
        assert top == note, question
        # Korean queries are ranked by keywords: the English-only vectors stay out.
        korean_query = question != "rotating keys"
        assert any("English-only" in n for n in notices) == korean_query
    expected_analysis = "hangul-bigram" if analyzer == "ngram" else "kiwi-"
    assert str(vault.status().fts_analyzer).startswith(expected_analysis)


@needs_kiwi
def test_kiwi_index_searched_where_kiwi_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "kiwi")
    _vault(tmp_path).index(fast=True)
    monkeypatch.delenv(ANALYZER_ENV)
    monkeypatch.setattr(korean, "kiwi_installed", lambda: False)
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    top, notices = _top(vault, "볼트끼리 전환하려면")
    assert top == "볼트 관리.md"
    assert any("kiwipiepy" in n and "vaultctx index" in n for n in notices)
    # Re-indexing here re-analyses every note with the analysis this process has.
    vault.index(fast=True)
    top, notices = _top(vault, "볼트끼리 전환하려면")
    assert top == "볼트 관리.md"
    assert not any("kiwipiepy" in n for n in notices)
    assert str(vault.status().fts_analyzer).startswith("hangul-bigram")


def _indexed(root: Path, names: list[str]) -> Vault:
    (root / "vault").mkdir(parents=True)
    for name in names:
        (root / "vault" / name).write_text(NOTES[name], encoding="utf-8")
    vault = Vault(root / "vault", db=root / "index.db")
    vault.index(fast=True)
    return vault


def test_status_says_when_vectors_cannot_help(tmp_path: Path) -> None:
    korean_notes = ["볼트 관리.md", "sync.md", "잠금.md"]
    note = _indexed(tmp_path / "ko", korean_notes).status().language_note
    assert note is not None and "English-only" in note and "BM25" in note

    status = _indexed(tmp_path / "en", ["keys.md", "garden.md"]).status()
    assert status.language_note is None and status.korean_share == 0.0
