"""Full-text search over every message and title: plain words, Hangul substrings, and input
that can never raise anything but a VaultctxError."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import make_vault
from vaultctx.conversations import ConversationStore, EmptyQueryError, Message
from vaultctx.conversations.query import plan_search, substring_snippet
from vaultctx.errors import VaultctxError

CHATS = {
    "Database locks": [
        Message("user", "Why did the database lock up last night?"),
        Message("assistant", "A long-running checkpoint held the write lock for minutes."),
        Message("user", "How do I stop the zeppelin batch from doing that again?"),
        Message("assistant", "Run the batch in smaller transactions."),
    ],
    "볼트 설정": [
        Message("user", "볼트를 어떻게 설정하나요?"),
        Message("assistant", "데이터베이스가 잠겼다면 체크포인트를 확인하세요."),
    ],
    "Café notes": [Message("user", "Notes from the café about the résumé template.")],
}


@pytest.fixture
def filled(store: ConversationStore) -> dict[str, str]:
    ids = {}
    for title, messages in CHATS.items():
        chat = store.new(title, "ollama", "qwen3")
        store.append(chat.id, messages)
        ids[title] = chat.id
    return ids


def _ids(store: ConversationStore, query: str) -> list[str]:
    return [hit.conversation_id for hit in store.search(query)]


def test_a_word_from_a_middle_message_is_found(
    store: ConversationStore, filled: dict[str, str]
) -> None:
    hits = store.search("zeppelin")
    assert [h.conversation_id for h in hits] == [filled["Database locks"]]
    assert hits[0].title == "Database locks"
    assert "**zeppelin**" in hits[0].snippet and hits[0].rank < 0


def test_every_word_must_be_in_one_message(
    store: ConversationStore, filled: dict[str, str]
) -> None:
    assert _ids(store, "checkpoint write") == [filled["Database locks"]]
    assert _ids(store, "zeppelin checkpoint") == []


def test_words_match_as_prefixes_and_without_accents(
    store: ConversationStore, filled: dict[str, str]
) -> None:
    assert _ids(store, "transaction") == [filled["Database locks"]]  # transactions
    assert _ids(store, "resume") == [filled["Café notes"]]
    assert _ids(store, "CAFE") == [filled["Café notes"]]


def test_one_hit_per_conversation(store: ConversationStore, filled: dict[str, str]) -> None:
    assert _ids(store, "lock") == [filled["Database locks"]]
    assert len(store.search("the", limit=1)) == 1


def test_titles_are_searched_too(store: ConversationStore, filled: dict[str, str]) -> None:
    store.rename(filled["Café notes"], "Holiday planning")
    hits = store.search("holiday")
    assert [h.conversation_id for h in hits] == [filled["Café notes"]]
    assert hits[0].snippet == "**Holiday** planning"


@pytest.mark.parametrize(
    ("query", "marked"),
    [
        ("볼트", "**볼트**를"),  # a two-syllable noun inside the eojeol 볼트를
        ("설정", "**설정**하나요"),
        ("데이터베이스", "**데이터베이스**가"),  # long enough for the trigram table
        ("체크포인트 확인", "**체크포인트**를 **확인**하세요"),
        ("잠겼", "**잠겼**다면"),
    ],
)
def test_a_korean_word_inside_a_longer_eojeol_is_found(
    store: ConversationStore, filled: dict[str, str], query: str, marked: str
) -> None:
    hits = store.search(query)
    assert [h.conversation_id for h in hits] == [filled["볼트 설정"]]
    assert marked in hits[0].snippet


def test_korean_title_and_no_false_matches(
    store: ConversationStore, filled: dict[str, str]
) -> None:
    assert _ids(store, "볼트 설정") == [filled["볼트 설정"]]
    assert _ids(store, "볼트 zeppelin") == []
    assert _ids(store, "볼") == [filled["볼트 설정"]]
    assert _ids(store, "봄") == []


def test_word_search_alone_misses_what_substrings_find(tmp_path: Path) -> None:
    """Why the trigram path exists: unicode61 keeps 볼트를 as one token."""
    plan = plan_search("볼트")
    assert plan.words is None and plan.likes == ("%볼트%",)
    assert plan_search("checkpoint").words == '"checkpoint" *'


HOSTILE = [
    'a OR "b',
    "-x",
    '"',
    '""',
    "NEAR(a b)",
    "title:lock",
    "lock*",
    "^lock",
    "(lock",
    "lock AND",
    "NOT",
    "a + b",
    "%",
    "_",
    "\\",
    "{title text}: lock",
    "'; DROP TABLE messages; --",
    '볼트 OR "',
    "\x00lock",
    "lock\ud800",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_input_is_searched_as_text(
    store: ConversationStore, filled: dict[str, str], query: str
) -> None:
    try:
        hits = store.search(query)
    except VaultctxError:
        return
    assert all(hit.conversation_id in filled.values() for hit in hits)
    assert len(store.list()) == len(CHATS)


def test_an_empty_query_is_an_error(store: ConversationStore) -> None:
    for query in ("", "   ", "-- ()", '"'):
        with pytest.raises(EmptyQueryError) as raised:
            store.search(query)
        assert raised.value.suggestion


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConversationStore]:
    """A module-wide store (hypothesis reruns the test body, not function fixtures)."""
    root = tmp_path_factory.mktemp("fuzz")
    with pytest.MonkeyPatch.context() as patch:
        import platformdirs

        patch.setattr(platformdirs, "user_data_dir", lambda name: str(root / "data" / name))
        vault = make_vault(root / "notes", {"a.md": "# A\n"})
        store = ConversationStore.open(vault)
    for title, messages in CHATS.items():
        chat = store.new(title, "b", "m")
        store.append(chat.id, messages)
    yield store
    store.close()


FTS_PIECES = st.sampled_from(
    [
        '"',
        "'",
        "OR",
        "AND",
        "NOT",
        "NEAR",
        "(",
        ")",
        "*",
        "^",
        "-",
        "+",
        ":",
        "{",
        "}",
        ",",
        "%",
        "_",
        "\\",
        "\x00",
        "lock",
        "볼트",
        "를",
        "é",
        "title",
        "text",
        " ",
        "\t",
        "\n",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    query=st.one_of(
        st.text(),
        st.lists(FTS_PIECES, max_size=12).map("".join),
        st.lists(FTS_PIECES, max_size=8).map(" ".join),
        st.text(st.characters(exclude_categories=())),  # lone surrogates too
    )
)
def test_any_string_gives_hits_or_a_vaultctx_error(
    fuzz_store: ConversationStore, query: str
) -> None:
    try:
        hits = fuzz_store.search(query, limit=5)
    except VaultctxError:
        return
    assert len(hits) <= 5
    assert all(isinstance(hit.snippet, str) for hit in hits)


def test_substring_snippets_mark_every_match_and_stay_short() -> None:
    text = "앞 " * 100 + "볼트를 조였다. 다시 볼트를 봤다." + " 뒤" * 100
    snippet = substring_snippet(text, ("볼트",))
    assert snippet.count("**볼트**") == 2
    assert snippet.startswith("…") and snippet.endswith("…") and len(snippet) < 220
    assert substring_snippet("Résumé", ("resume",)) == "**Résumé**"
