"""Script-based language of chunks and questions (text/language.py)."""

from __future__ import annotations

import pytest

from vaultctx.text.language import language_name, text_language


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How do I link two notes?", "en"),
        ("Wie verknüpfe ich zwei Notizen?", "en"),  # Latin script counts as English
        ("", "en"),
        ("12345 --- ```", "en"),
        ("노트 두 개를 연결하려면?", "ko"),
        # Korean prose full of code and English terms is still Korean.
        ("`git commit -m message` 명령으로 변경 사항을 커밋합니다", "ko"),
        ("ノートをリンクする方法", "ja"),
        ("東京の天気はどうですか", "ja"),  # kanji beside kana: Japanese
        ("如何链接两个笔记", "zh"),
        ("Как связать две заметки?", "ru"),
        # Code, URLs and link targets are Latin in every language: not counted.
        (
            "설치는 [npm](https://www.npmjs.com/package/obsidian-headless-cli)에서 "
            "`npm install --global obsidian-headless` 하세요",
            "ko",
        ),
        # A stray Hangul word in English text does not make it Korean.
        ("The Korean word for compost is 퇴비, used in the garden notes about soil", "en"),
    ],
)
def test_text_language_by_script(text: str, expected: str) -> None:
    assert text_language(text) == expected


def test_language_names_are_plain_words() -> None:
    assert language_name("ko") == "Korean" and language_name("en") == "English"
    assert language_name("xx") == "xx"
