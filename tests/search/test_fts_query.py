from __future__ import annotations

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultctx.search.fts_query import build_fts_query


@pytest.fixture(scope="module")
def fts() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61 remove_diacritics 2')"
    )
    rows = [
        (1, "def _rrf_fuse(rankings): fuse ranked lists"),
        (2, "run the indexer with --incremental to skip unchanged files"),
        (3, "the database was busy: SQLITE_LOCKED returned by the writer"),
        (4, "fuse boxes and the electrical panel"),
        (5, "볼트 설정과 색인 방법"),
        (6, "sqlite is locked while the writer holds the lock"),
    ]
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", rows)
    return conn


def _match(conn: apsw.Connection, text: str) -> list[int]:
    query = build_fts_query(text)
    if query is None:
        return []
    return [
        r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank", (query,))
    ]


@pytest.mark.parametrize(
    ("text", "expected_first"),
    [("_rrf_fuse", 1), ("--incremental", 2), ("SQLITE_LOCKED", 3), ("볼트", 5)],
)
def test_exact_identifiers_are_found_first(
    fts: apsw.Connection, text: str, expected_first: int
) -> None:
    assert _match(fts, text)[0] == expected_first


def test_identifier_is_a_phrase_not_loose_words(fts: apsw.Connection) -> None:
    # "sqlite" and "locked" both occur in row 6, but not adjacent as in SQLITE_LOCKED.
    assert _match(fts, "SQLITE_LOCKED") == [3]


def test_stopwords_dropped_unless_alone() -> None:
    assert build_fts_query("how do I fuse the lists") == '"fuse" OR "lists"'
    assert build_fts_query("the") == '"the"'


def test_nothing_searchable() -> None:
    assert build_fts_query("") is None
    assert build_fts_query('"" -- : * ( ) ^') is None


def test_prefix_star_kept() -> None:
    assert build_fts_query("index*") == '"index"*'


_PIECES = [
    *"\"'-:*()^+_ .,;!?{}[]<>/\\|&%$#@~`=\n\t",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "near/3",
    "볼트를",
    "é",
    "🙂",
    "x",
    "_rrf_fuse",
    "--incremental",
    "SQLITE_LOCKED",
    "col:",
    "^x",
]
NASTY = st.lists(st.sampled_from(_PIECES), max_size=12).map(" ".join) | st.lists(
    st.sampled_from(_PIECES), max_size=12
).map("".join)


@settings(max_examples=2_000, deadline=None)
@given(st.one_of(NASTY, st.text(max_size=60)))
def test_any_text_is_a_valid_query(text: str) -> None:
    conn = _shared_conn()
    _match(conn, text)  # raises apsw.SQLError on an invalid FTS5 expression


_CONN: list[apsw.Connection] = []


def _shared_conn() -> apsw.Connection:
    if not _CONN:
        conn = apsw.Connection(":memory:")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
        conn.execute("INSERT INTO t(rowid, body) VALUES (1, 'and or not near x')")
        _CONN.append(conn)
    return _CONN[0]
