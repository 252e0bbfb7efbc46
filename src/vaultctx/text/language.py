"""The language of a chunk or a question, told by its script.

Routing needs one answer: can an English-only ranker read this text? The script says so without
a model: Hangul is Korean, kana is Japanese, Han without kana is Chinese, Cyrillic is Russian (the
most common Cyrillic language in notes), and so on. Every Latin-script text counts as English: the
bundled English models read French or German badly, but far better than they read Hangul, and a
statistical detector would cost the indexer time on every chunk for a distinction the routing
does not use. A text counts as non-English when its non-Latin letters are at least a fifth of its
letters, not counting code, URLs and link targets (a Hangul syllable stands for a whole Latin
syllable, so Korean prose full of English terms still counts as Korean); the script with most
letters names it. The indexer passes a chunk's heading context with its text, as the engines see
them together.
"""

from __future__ import annotations

import re
from functools import cache

ENGLISH = "en"
# One pattern per script, as (language code, character class).
_SCRIPTS: tuple[tuple[str, str], ...] = (
    ("ko", "\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"),
    ("ja", "\u3040-\u30ff"),
    ("zh", "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"),
    ("ru", "\u0400-\u04ff"),
    ("el", "\u0370-\u03ff"),
    ("ar", "\u0600-\u06ff"),
    ("he", "\u0590-\u05ff"),
    ("hi", "\u0900-\u097f"),
    ("th", "\u0e00-\u0e7f"),
)
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
# Code, URLs and link targets are Latin whatever language the note is written in.
_NOT_PROSE = re.compile(r"```.*?(```|$)|`[^`\n]*`|\]\([^)]*\)|https?://\S+|<[^>\n]*>", re.S)
# Share of letters that must be non-Latin for a text to count as non-English.
NON_LATIN_SHARE = 0.2

LANGUAGE_NAMES = {
    "en": "English",
    "ko": "Korean",
    "ja": "Japanese",
    "zh": "Chinese",
    "ru": "Russian",
    "el": "Greek",
    "ar": "Arabic",
    "he": "Hebrew",
    "hi": "Hindi",
    "th": "Thai",
}


@cache
def _script_patterns() -> tuple[re.Pattern[str], tuple[tuple[str, re.Pattern[str]], ...]]:
    """Any non-Latin script, and each script: compiled on first use, as the classes span
    thousands of characters (5 ms at import, which an English question never needs)."""
    any_script = re.compile("[" + "".join(chars for _, chars in _SCRIPTS) + "]")
    return any_script, tuple((code, re.compile(f"[{chars}]")) for code, chars in _SCRIPTS)


def text_language(text: str) -> str:
    """The language code of ``text`` by its script; ``"en"`` for Latin script or no letters."""
    if text.isascii():
        return ENGLISH  # the common case, without a pattern
    non_latin, patterns = _script_patterns()
    if non_latin.search(text) is None:
        return ENGLISH  # in one C-speed scan
    text = _NOT_PROSE.sub(" ", text)
    counts = {code: len(pattern.findall(text)) for code, pattern in patterns}
    if counts["ja"] and counts["zh"]:
        counts["ja"] += counts.pop("zh")  # Japanese writes kanji beside its kana
    code, letters = max(counts.items(), key=lambda item: item[1])
    latin = len(_LATIN.findall(text))
    return code if letters >= NON_LATIN_SHARE * (letters + latin) else ENGLISH


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)
