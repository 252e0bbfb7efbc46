"""Kiwi morphemes (the optional ``kiwipiepy`` extra): content kept, grammar dropped."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from vaultctx.config import ConfigError
from vaultctx.text import korean
from vaultctx.text.korean import content_morphemes

pytestmark = pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("볼트를", ["볼트"]),  # particle dropped
        ("볼트를 설정했다", ["볼트", "설정"]),  # 하/XSV, 었/EP, 다/EF dropped
        # irregular verb → its stem; the compound noun also whole (test below)
        ("은행법에 따른 인가", ["은행", "법", "은행법", "따르", "인가"]),
        ("예비인가를 받으려는 자는", ["예비", "인가", "예비인가", "받", "자"]),
    ],
)
def test_content_morphemes_drop_particles_and_endings(text: str, expected: list[str]) -> None:
    assert content_morphemes(text).split() == expected


def test_non_hangul_is_copied_verbatim() -> None:
    words = content_morphemes("Obsidian에서 SQLITE_LOCKED 오류(error #42)가 났다").split()
    assert words[0] == "Obsidian"
    assert "SQLITE_LOCKED" in words
    assert "오류" in words and "(error" in words and "#42)" in words
    assert "에서" not in words and "가" not in words


def test_concurrent_calls_agree_with_serial_ones() -> None:
    texts = [f"{n}번째 노트를 볼트에 저장했습니다" for n in range(64)]
    serial = [content_morphemes(t) for t in texts]
    content_morphemes.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(content_morphemes, texts)) == serial


def test_a_broken_install_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ImportError(f"no module named {name}")

    monkeypatch.setattr(korean, "_kiwi", None)
    monkeypatch.setattr(korean.importlib, "import_module", missing)
    content_morphemes.cache_clear()
    with pytest.raises(ConfigError, match="could not load") as raised:
        content_morphemes("볼트를")
    assert "pip install 'vaultctx[ko]'" in raised.value.suggestion
    assert raised.value.suggestion.endswith("=ngram")


def test_kiwi_version_is_the_installed_distributions() -> None:
    """Read from the package's file for speed, it must equal what the metadata says: the index
    records it, and a different value would rebuild every index's keyword table."""
    import importlib.metadata

    if not korean.kiwi_installed():
        pytest.skip("kiwipiepy is not installed")
    assert korean.kiwi_version() == importlib.metadata.version("kiwipiepy")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A compound noun: its parts, then the whole word (Nori's "mixed" decompounding).
        ("시중은행의 인가", ["시중", "은행", "시중은행", "인가"]),
        ("공무원연금법 제65조", ["공무원", "연금", "법", "공무원연금법", "제", "65", "조"]),
        # Written apart, the nouns are two words and stay two.
        ("시중 은행의 인가", ["시중", "은행", "인가"]),
        # A particle between nouns ends the compound; a single noun is not repeated.
        ("은행의 인가를", ["은행", "인가"]),
        # Latin letters end a compound too: only Hangul nouns are joined.
        ("B2B비즈니스", ["B2B", "비즈니스"]),
    ],
)
def test_compound_nouns_are_kept_whole_after_their_parts(text: str, expected: list[str]) -> None:
    assert content_morphemes(text).split() == expected
