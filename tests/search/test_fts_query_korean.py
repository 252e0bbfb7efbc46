"""Korean and CJK queries: always a valid FTS5 expression, whatever analysis the index used."""

from __future__ import annotations

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.search.fts_query import build_fts_query
from vaultctx.text import korean

# Index ids of each analysis family (text.lexical.analyzer_id); "unicode61": raw-text rows.
INDEXES = [
    pytest.param(
        "kiwi-0.24.1+cjk-bigram/v1",
        marks=pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed"),
    ),
    "hangul-bigram+cjk-bigram/v1",
    "unicode61",
]
_PIECES = [
    *"\"'-:*()^+_ .,;!?{}[]\n",
    "AND",
    "NOT",
    "NEAR",
    "볼트를",
    "무엇인가요",
    "왜",
    "했다",
    "e커머스",
    "SQLITE_LOCKED",
    "ㅋㅋ",
    "東京",
    "テキスト",
    "銀行에서",
]
QUERIES = st.lists(st.sampled_from(_PIECES), max_size=8).map(" ".join) | st.lists(
    st.sampled_from(_PIECES), max_size=8
).map("".join)


@pytest.fixture(scope="module")
def conn() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, content='')")
    conn.execute("INSERT INTO t(rowid, body) VALUES (1, '볼트 and or not near 東京')")
    return conn


@pytest.mark.parametrize("index_analyzer", INDEXES)
@pytest.mark.parametrize("kiwi_here", [True, False])
def test_any_korean_text_is_a_valid_query(
    conn: apsw.Connection, index_analyzer: str, kiwi_here: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not kiwi_here:  # a Kiwi index queried where kiwipiepy is missing
        monkeypatch.setattr(korean, "kiwi_installed", lambda: False)

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(QUERIES, st.text(max_size=30)))
    def check(text: str) -> None:
        query = build_fts_query(text, index_analyzer)
        if query is not None:  # raises apsw.SQLError on an invalid FTS5 expression
            conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()

    check()


def test_question_words_dropped_unless_alone() -> None:
    bigram_index = "hangul-bigram+cjk-bigram/v1"
    assert build_fts_query("볼트는 무엇인가요?", bigram_index) == '"볼트"'
    assert build_fts_query("왜 볼트를 쓰나요", bigram_index) == '"볼트" OR "쓰나"'
    assert build_fts_query("무엇인가요?", bigram_index) == '"무엇" OR "엇인" OR "인가"'


def test_english_queries_are_untouched_by_the_analysis() -> None:
    for index in ("hangul-bigram+cjk-bigram/v1", "unicode61", None):
        assert build_fts_query("how do I fuse the lists", index) == '"fuse" OR "lists"'
        assert build_fts_query("SQLITE_LOCKED index*", index) == '"sqlite locked" OR "index"*'
