"""Which words a keyword query keeps (search/fts_query.py), one by one: each English stopword and
each Korean question word is dropped beside a meaningful word, a duplicate is asked for once, a
trailing ``*`` is a prefix only on a one-part word, and the title lookup and title key spell
their words as the index does."""

from __future__ import annotations

import pytest

from vaultctx.search import fts_query
from vaultctx.search.fts_query import build_fts_query, build_title_query, title_key
from vaultctx.text import korean

BIGRAMS = "hangul-bigram+cjk-bigram/v1"

# Written out here, not imported: the list is a promise about which words rank nothing.
STOPWORDS = """
a an and are as at be but by can do does for from
has have how i if in is it its me my no not of
on or our so than that the their them then there these they this
to was we were what when where which who why will with you your
""".split()  # noqa: SIM905


@pytest.mark.parametrize("word", STOPWORDS)
def test_each_stopword_is_dropped_beside_a_meaningful_word(word: str) -> None:
    assert build_fts_query(f"{word} compost {word.upper()}") == '"compost"'
    assert build_fts_query(word) == f'"{word}"', "alone, it is still searched"


def test_there_are_no_other_stopwords() -> None:
    assert frozenset(STOPWORDS) == fts_query.STOPWORDS


@pytest.mark.parametrize("word", ["about", "into", "one", "all", "use", "more", "compost"])
def test_other_common_words_are_kept(word: str) -> None:
    assert build_fts_query(f"{word} soil") == f'"{word}" OR "soil"'


@pytest.mark.parametrize(
    "word",
    [
        "무엇",
        "뭐야",
        "뭔가",
        "뭘",
        "어떤",
        "어떻게",
        "어느",
        "어디에",
        "언제",
        "누구",
        "얼마나",
        "왜",
        "몇",
    ],
)
def test_each_korean_question_word_is_dropped_beside_a_meaningful_word(word: str) -> None:
    assert build_fts_query(f"{word} 볼트", BIGRAMS) == '"볼트"'


@pytest.mark.parametrize("word", ["왜냐", "몇몇", "설정", "무엇-볼트"])
def test_a_word_that_only_starts_like_a_question_word_is_kept(word: str) -> None:
    query = build_fts_query(f"{word} 볼트", BIGRAMS)
    assert query is not None and query != '"볼트"'


def test_a_word_asked_twice_is_asked_for_once_in_first_order() -> None:
    assert build_fts_query("soil compost Soil SOIL compost") == '"soil" OR "compost"'
    assert build_fts_query("the the") == '"the"'
    assert build_fts_query("soil soil compost") == '"soil" OR "compost"', "and goes on after"
    assert build_fts_query("-- compost") == '"compost"', "past a word with nothing to search"


def test_a_trailing_star_is_a_prefix_only_on_a_word_of_one_part() -> None:
    assert build_fts_query("comp*") == '"comp"*'
    assert build_fts_query("sqlite_lock*") == '"sqlite lock"'
    assert build_fts_query("*comp") == '"comp"'
    assert build_fts_query("the*") == '"the"*'
    assert build_fts_query("the* compost") == '"compost"'


def test_the_title_lookup_is_a_phrase_at_the_start_of_the_context_line() -> None:
    assert build_title_query("Release Plan: 2026") == 'heading_context : ^"release plan 2026"'
    assert build_title_query("SQLITE_LOCKED") == 'heading_context : ^"sqlite locked"'
    assert build_title_query(" -- ") is None
    assert build_title_query("볼트를", BIGRAMS) == 'heading_context : ^"볼트"'


def test_a_title_key_is_its_words_casefolded_and_single_spaced() -> None:
    assert title_key("  Straße_Plan:\t2026 ") == "strasse plan 2026"
    assert title_key("Release  plan") == title_key("release PLAN")
    assert title_key("--") == ""


KIWI = pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed")
KOREAN = "볼트를 설정하기"


@KIWI
@pytest.mark.parametrize(
    ("index", "index_korean", "pieces"),
    [
        (None, True, "볼트 설정"),  # this process's analysis: Kiwi morphemes
        ("kiwi-0.24.1+cjk-bigram/v1", True, "볼트 설정"),
        ("kiwi-0.24.1+cjk-bigram/v1", False, "볼트 설정 정하"),  # no Hangul indexed: bigrams
        ("hangul-bigram+cjk-bigram/v1", True, "볼트 설정 정하"),
        ("unicode61", True, "볼트를 설정하기"),  # raw words, as that index holds them
    ],
)
def test_both_queries_analyse_korean_as_the_index_did(
    index: str | None, index_korean: bool, pieces: str
) -> None:
    assert build_title_query(KOREAN, index, index_korean=index_korean) == (
        f'heading_context : ^"{pieces}"'
    )
    assert build_fts_query(KOREAN, index, index_korean=index_korean) == " OR ".join(
        f'"{piece}"' for piece in pieces.split()
    )
    if index_korean:  # the default
        assert build_title_query(KOREAN, index) == f'heading_context : ^"{pieces}"'
        assert build_fts_query(KOREAN, index) == " OR ".join(f'"{p}"' for p in pieces.split())
