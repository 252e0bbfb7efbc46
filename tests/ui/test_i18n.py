"""The UI's three languages: the same keys in each, and which one a browser gets."""

from __future__ import annotations

import string

import pytest

from vaultctx.ui.i18n import CATALOGUE, LANGUAGES, choose_language, translate


def test_every_language_has_every_string_with_the_same_placeholders() -> None:
    english = CATALOGUE["en"]
    for language in LANGUAGES:
        assert CATALOGUE[language].keys() == english.keys(), language
        for key, text in CATALOGUE[language].items():
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            expected = {f for _, f, _, _ in string.Formatter().parse(english[key]) if f}
            assert fields == expected, (language, key)


@pytest.mark.parametrize(
    ("cookie", "header", "expected"),
    [
        (None, None, "en"),
        (None, "ko-KR,ko;q=0.9,en-US;q=0.8", "ko"),
        (None, "ja", "ja"),
        (None, "fr-FR,fr;q=0.9,ja;q=0.5,ko;q=0.4", "ja"),
        (None, "en;q=0.1,ko;q=0.9", "ko"),
        (None, "ko;q=0,ja;q=0.2", "ja"),  # q=0 means "not this one"
        (None, "de,fr", "en"),
        (None, "ko;q=abc,ja", "ja"),  # a malformed part is skipped
        ("ja", "ko", "ja"),  # the switch wins over the browser
        ("xx", "ko", "ko"),  # an unknown cookie is ignored
    ],
)
def test_the_language_comes_from_the_switch_then_the_browser(
    cookie: str | None, header: str | None, expected: str
) -> None:
    assert choose_language(cookie, header) == expected


def test_translate_fills_values_and_falls_back_to_english() -> None:
    assert translate("ko", "search.count", count=3, ms=5) == "결과 3개, 5 ms"
    assert translate("xx", "nav.search") == "Search"
