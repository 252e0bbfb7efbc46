"""Sanity: questions a Korean user would ask of the Korean Obsidian Help vault.

Five of its folders (57 of 173 notes) are indexed: Kiwi needs ~10 s of CPU for the whole vault,
and these folders hold every answer plus plenty of near misses (the other importers, settings,
the other sync and vault notes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import shared_data
from vaultctx.api import Vault
from vaultctx.text import korean
from vaultctx.text.lexical import ANALYZER_ENV

FOLDERS = ["시작하기", "편집 및 서식", "노트 들여오기", "사용자 인터페이스", "파일 및 폴더"]
QUESTIONS = {
    "노트에 태그를 붙이는 방법": {"편집 및 서식/태그.md"},
    "Evernote 노트를 가져오고 싶어요": {"노트 들여오기/Evernote에서 들여오기.md"},
    "단축키를 변경하려면?": {"사용자 인터페이스/단축키.md"},
    "여러 기기에서 노트를 동기화하는 방법": {"시작하기/기기 간 노트 동기화.md"},
    "보관함이 뭐예요?": {"시작하기/보관함 생성.md", "파일 및 폴더/보관함 관리.md"},
}


@pytest.mark.parametrize(
    "analyzer",
    [
        pytest.param(
            "kiwi",
            marks=pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed"),
        ),
        "ngram",
    ],
)
def test_korean_questions_answered_in_top_five(
    analyzer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = shared_data("obsidian-help", "ko")
    for folder in FOLDERS:
        shutil.copytree(source / folder, tmp_path / "vault" / folder)
    monkeypatch.setenv(ANALYZER_ENV, analyzer)
    vault = Vault(tmp_path / "vault", db=tmp_path / "index.db")
    vault.index(fast=True)
    for question, answers in QUESTIONS.items():
        top5 = [r.file_path for r in vault.search(question, limit=5, notes=True).results]
        assert answers & set(top5), f"{question!r}: {top5}"
