"""The index/query contract of ``text.lexical``: what FTS5 indexes and how queries must match it."""

from __future__ import annotations

import subprocess
import sys

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from vaultctx.config import ConfigError
from vaultctx.search.fts_query import build_fts_query
from vaultctx.text import korean
from vaultctx.text.cjk import HAN_KANA_RUN, HANGUL_RUN
from vaultctx.text.lexical import ANALYZER_ENV, analyzer_id, fts_document, query_notice

ANALYZERS = [
    pytest.param(
        "kiwi",
        marks=pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed"),
    ),
    "ngram",
]


@pytest.fixture(params=ANALYZERS)
def analyzer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(ANALYZER_ENV, request.param)
    return str(request.param)


def _table(rows: list[str]) -> apsw.Connection:
    """A contentless FTS5 table as the index has, holding ``rows`` (already analysed)."""
    conn = apsw.Connection(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(body, content='', "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", list(enumerate(rows, 1)))
    return conn


def _hits(conn: apsw.Connection, query: str, index_analyzer: str | None = None) -> list[int]:
    match = build_fts_query(query, index_analyzer)
    assert match is not None
    return [
        r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank", (match,))
    ]


def _search(docs: list[str], query: str) -> list[int]:
    """Row numbers (1-based) of ``docs`` matching ``query``, best first, through real FTS5."""
    return _hits(_table([fts_document(doc) for doc in docs]), query)


NOTES = [
    "볼트를 설정하는 방법과 색인을 다시 만드는 방법",
    "정원에 물을 주는 방법: 토마토는 햇빛이 필요하다",
    "Obsidian에서 SQLITE_LOCKED 오류가 나면 쓰기 작업을 기다린다",
    "Rotate the deploy keys every ninety days",
    "東京都の天気は晴れです",
]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("볼트", 1),  # the particle no longer hides the word
        ("볼트가 뭐야", 1),  # another particle on the query side
        ("색인", 1),
        ("토마토에", 2),
        ("SQLITE_LOCKED", 3),  # an identifier inside Korean text stays a phrase
        ("obsidian 오류", 3),
        ("rotating keys", 4),  # English keeps porter stemming
        ("東京", 5),
    ],
)
def test_words_are_found_inside_inflected_and_unspaced_text(
    analyzer: str, query: str, expected: int
) -> None:
    assert _search(NOTES, query)[0] == expected


def test_question_words_do_not_rank(analyzer: str) -> None:
    # 무엇인가요 ("what is it") occurs in the second note only; it must not pull that note up.
    docs = ["볼트 설정 방법", "이것은 무엇인가요 무엇인가요"]
    assert _search(docs, "볼트 설정은 무엇인가요?") == [1]


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=80).filter(lambda t: not HANGUL_RUN.search(t) and not HAN_KANA_RUN.search(t))
)
def test_text_without_cjk_is_indexed_unchanged(text: str) -> None:
    assert fts_document(text) == text


def test_analyzer_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "ngram")
    assert analyzer_id().startswith("hangul-bigram")
    monkeypatch.setenv(ANALYZER_ENV, "auto")
    monkeypatch.setattr(korean, "kiwi_installed", lambda: False)
    assert analyzer_id().startswith("hangul-bigram")
    monkeypatch.setattr(korean, "kiwi_installed", lambda: True)
    monkeypatch.setattr(korean, "kiwi_version", lambda: "9.9.9")
    assert analyzer_id().startswith("kiwi-9.9.9+")
    monkeypatch.delenv(ANALYZER_ENV)
    assert analyzer_id().startswith("kiwi-9.9.9+")


def test_unusable_analyzer_choice_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "mecab")
    with pytest.raises(ConfigError, match=f"{ANALYZER_ENV}='mecab'") as raised:
        analyzer_id()
    assert "kiwi, ngram or auto" in raised.value.suggestion
    monkeypatch.setenv(ANALYZER_ENV, "kiwi")
    monkeypatch.setattr(korean, "kiwi_installed", lambda: False)
    with pytest.raises(ConfigError, match="not installed") as missing:
        fts_document("볼트")
    assert "pip install 'vaultctx[ko]'" in missing.value.suggestion


@pytest.mark.skipif(not korean.kiwi_installed(), reason="kiwipiepy not installed")
def test_kiwi_index_stays_searchable_without_kiwi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "kiwi")
    built_with = analyzer_id()
    table = _table([fts_document(note) for note in NOTES])
    monkeypatch.setattr(korean, "kiwi_installed", lambda: False)
    for query, expected in [("볼트를", 1), ("토마토는", 2), ("SQLITE_LOCKED", 3)]:
        assert _hits(table, query, built_with)[0] == expected, query
    notice = query_notice(built_with, "볼트를")
    assert notice is not None and "kiwipiepy" in notice and "vaultctx index" in notice


def test_notices_only_for_korean_queries_on_differently_analysed_indexes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ANALYZER_ENV, "ngram")
    current = analyzer_id()
    assert query_notice(current, "볼트 설정") is None
    assert query_notice(None, "볼트 설정") is None
    assert query_notice("unicode61", "deploy keys") is None
    legacy = query_notice("unicode61", "볼트 설정")
    assert legacy is not None and "vaultctx index" in legacy
    other = query_notice("kiwi-0.1.0+cjk-bigram/v1", "볼트 설정")
    if korean.kiwi_installed():
        assert other is not None and "vaultctx index" in other


def test_hangul_free_text_never_loads_kiwi() -> None:
    """In a fresh interpreter: other tests here may already have loaded Kiwi."""
    code = (
        "import sys\n"
        "from vaultctx.text import korean, lexical\n"
        "from vaultctx.search.fts_query import build_fts_query\n"
        "lexical.analyzer_id()\n"
        "lexical.fts_document('Rotate the keys: naïve café 🙂 東京')\n"
        "build_fts_query('rotate keys', lexical.analyzer_id())\n"
        "print(korean.kiwi_loaded(), 'kiwipiepy' in sys.modules)\n"
        "if korean.kiwi_installed():\n"
        "    lexical.fts_document('볼트를')\n"
        "    print(korean.kiwi_loaded())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=True,
    )
    lines = done.stdout.split()
    assert lines[:2] == ["False", "False"]
    if korean.kiwi_installed():
        assert lines[2] == "True"
