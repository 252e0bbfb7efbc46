from __future__ import annotations

import pytest

from vaultctx.text.cjk import (
    HAN_KANA_RUN,
    HANGUL_RUN,
    bigram_runs,
    bigrams,
    hangul_word_share,
    korean_query_bigrams,
)


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        ("볼", ["볼"]),
        ("볼트", ["볼트"]),
        ("볼트를", ["볼트", "트를"]),
        ("東京都", ["東京", "京都"]),
    ],
)
def test_bigrams(run: str, expected: list[str]) -> None:
    assert bigrams(run) == expected


def test_query_bigrams_drop_the_one_that_straddles_the_particle() -> None:
    assert korean_query_bigrams("볼트를") == ["볼트"]
    assert korean_query_bigrams("인가요") == ["인가"]
    # Two syllables may well be the whole stem: nothing is dropped.
    assert korean_query_bigrams("볼트") == ["볼트"]
    assert korean_query_bigrams("법") == ["법"]


def test_bigram_runs_touch_only_their_script() -> None:
    text = "SQLITE_LOCKED 오류를 e커머스에서 봤다 (東京)"
    assert bigram_runs(text, HANGUL_RUN).split() == [
        "SQLITE_LOCKED",
        "오류",
        "류를",
        "e",
        "커머",
        "머스",
        "스에",
        "에서",
        "봤다",
        "(東京)",
    ]
    assert bigram_runs("日本語のテキスト", HAN_KANA_RUN).split() == [
        "日本",
        "本語",
        "語の",
        "のテ",
        "テキ",
        "キス",
        "スト",
    ]


def test_hangul_word_share_counts_words() -> None:
    assert hangul_word_share(["볼트를 설정 in Obsidian"]) == pytest.approx(2 / 4)
    assert hangul_word_share(["plain English", "only"]) == 0.0
    assert hangul_word_share([]) == 0.0
    assert hangul_word_share(["e커머스 시장"]) == 1.0
