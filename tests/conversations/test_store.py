"""The store: what goes in comes back, in order, in one transaction; ids; its file and schema."""

from __future__ import annotations

import os
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

from vaultctx.conversations import (
    AmbiguousConversationError,
    ConversationStore,
    Message,
    StoreFromNewerVersionError,
    ToolCall,
    UnknownConversationError,
    conversations_path,
)
from vaultctx.conversations.location import APPLICATION_ID
from vaultctx.conversations.store import SCHEMA_VERSION
from vaultctx.errors import VaultctxError

WHEN = datetime(2025, 3, 1, 9, 30, tzinfo=timezone.utc)


def test_messages_come_back_as_appended(store: ConversationStore) -> None:
    chat = store.new("WAL questions", backend="ollama", model="qwen3")
    assert chat.messages == () and chat.title == "WAL questions" and len(chat.id) == 8
    question = Message("user", "Why did the database lock?", created=WHEN, attachments=["a.png"])
    answer = Message(
        "assistant",
        "A long checkpoint held the lock.",
        created=WHEN + timedelta(seconds=5),
        tool_calls=[ToolCall("search_notes", {"query": "wal lock"}, "3 notes")],
        citations=["[[ops/wal#WAL]]"],
        usage={"input_tokens": 120, "output_tokens": 40},
        model_messages_json='[{"kind": "request", "parts": []}]',
    )
    store.append(chat.id, [question])
    store.append(chat.id, [answer])
    saved = store.get(chat.id)
    assert saved.messages == (question, answer)
    assert saved.backend == "ollama" and saved.model == "qwen3"
    assert saved.vault == str(store.vault)
    assert saved.updated >= saved.created
    assert saved.messages[1].created.tzinfo is not None


def test_times_are_stored_in_utc(store: ConversationStore) -> None:
    chat = store.new("t", "b", "m")
    seoul = timezone(timedelta(hours=9))
    store.append(chat.id, [Message("user", "hi", created=WHEN.astimezone(seoul))])
    created = store.get(chat.id).messages[0].created
    assert created == WHEN and created.utcoffset() == timedelta(0)
    with pytest.raises(ValueError, match="no time zone"):
        store.append(chat.id, [Message("user", "hi", created=datetime(2025, 1, 1))])


def test_a_partial_answer_is_saved_as_received(store: ConversationStore) -> None:
    chat = store.new("cut off", "openai", "gpt-4o-mini")
    store.append(
        chat.id, [Message("user", "explain"), Message("assistant", "The WAL is", partial=True)]
    )
    answer = store.get(chat.id).messages[1]
    assert answer.partial and answer.text == "The WAL is"


def test_append_is_one_transaction(store: ConversationStore) -> None:
    """A failure on the second message leaves the first unsaved too."""
    chat = store.new("atomic", "b", "m")
    assert store.path is not None
    saboteur = apsw.Connection(str(store.path))
    saboteur.execute(
        "CREATE TRIGGER fail BEFORE INSERT ON messages WHEN new.seq = 1 "
        "BEGIN SELECT RAISE(ABORT, 'disk gone'); END"
    )
    with pytest.raises(apsw.ConstraintError, match="disk gone"):
        store.append(chat.id, [Message("user", "first"), Message("assistant", "second")])
    assert store.get(chat.id).messages == ()
    assert store.search("first") == []
    saboteur.execute("DROP TRIGGER fail")
    store.append(chat.id, [Message("user", "first"), Message("assistant", "second")])
    assert [m.text for m in store.get(chat.id).messages] == ["first", "second"]


def test_an_unknown_role_saves_nothing(store: ConversationStore) -> None:
    chat = store.new("roles", "b", "m")
    with pytest.raises(ValueError, match="unknown message role"):
        store.append(chat.id, [Message("user", "ok"), Message("robot", "no")])  # type: ignore[arg-type]
    assert store.get(chat.id).messages == ()


def test_list_is_newest_first_with_counts(store: ConversationStore) -> None:
    first = store.new("first", "b", "m")
    second = store.new("second", "b", "m")
    store.append(first.id, [Message("user", "one"), Message("assistant", "two")])
    listed = store.list()
    assert [(s.id, s.message_count) for s in listed] == [(first.id, 2), (second.id, 0)]
    assert [s.id for s in store.list(limit=1, offset=1)] == [second.id]
    assert store.count() == 2


def test_ids_resolve_by_unique_prefix(store: ConversationStore) -> None:
    chat = store.new("prefix", "b", "m")
    assert store.get(chat.id[:3].upper()).id == chat.id
    for wrong in ("", "zz!", chat.id + "x", "0000"):
        with pytest.raises(UnknownConversationError):
            store.get(wrong)


def test_an_ambiguous_prefix_lists_the_matches(store: ConversationStore) -> None:
    ids = {store.new(f"chat {n}", "b", "m").id for n in range(40)}
    letter = max("abcdefghijklmnopqrstuvwxyz234567", key=lambda c: sum(i[0] == c for i in ids))
    with pytest.raises(AmbiguousConversationError) as raised:
        store.get(letter)
    assert "matches several conversations" in raised.value.message
    assert raised.value.suggestion == "give more characters of the id"
    assert sum(i in raised.value.message for i in ids) >= 2


def test_rename_and_delete(store: ConversationStore) -> None:
    chat = store.new("old title", "b", "m")
    store.append(chat.id, [Message("user", "zeppelin maintenance")])
    store.rename(chat.id[:4], "  new\ntitle ")
    assert store.get(chat.id).title == "new title"
    assert [h.conversation_id for h in store.search("new")] == [chat.id]
    assert store.search("old") == []
    assert store.delete(chat.id) == chat.id
    assert store.list() == [] and store.search("zeppelin") == []
    with pytest.raises(UnknownConversationError):
        store.get(chat.id)


def test_deleted_text_does_not_stay_in_the_file(vault: Path) -> None:
    with ConversationStore.open(vault) as store:
        keep = store.new("keep", "b", "m")
        store.append(keep.id, [Message("user", "ordinary words")])
        gone = store.new("gone", "b", "m")
        store.append(gone.id, [Message("user", "xylophonequartz " * 50)])
        store.delete(gone.id)
    raw = b"".join(p.read_bytes() for p in conversations_path(vault).parent.iterdir())
    assert b"xylophonequartz" not in raw and b"ordinary" in raw


def test_the_file_is_private_and_stamped(store: ConversationStore, data_dir: Path) -> None:
    path = store.path
    assert path is not None and path.parent == data_dir / "conversations"
    assert path.name.startswith("notes-") and path.suffix == ".db"
    header = path.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    conn = apsw.Connection(str(path))
    assert conn.execute("PRAGMA user_version").fetchall()[0][0] == SCHEMA_VERSION
    if sys.platform != "win32":
        assert os.stat(path).st_mode & 0o777 == 0o600
        assert os.stat(path.parent).st_mode & 0o777 == 0o700


def test_reading_without_create_makes_no_file(vault: Path) -> None:
    with ConversationStore.open(vault, create=False) as store:
        assert store.list() == [] and store.search("anything") == []
        with pytest.raises(UnknownConversationError):
            store.get("abcd")
    assert not conversations_path(vault).exists()


def test_a_store_from_a_newer_vaultctx_is_refused_and_kept(vault: Path) -> None:
    with ConversationStore.open(vault) as store:
        store.new("from the future", "b", "m")
    path = conversations_path(vault)
    conn = apsw.Connection(str(path))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreFromNewerVersionError, match="newer vaultctx"):
        ConversationStore.open(vault)
    assert path.read_bytes() == before


def test_each_vault_has_its_own_store(vault: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    with ConversationStore.open(vault) as store:
        store.new("here", "b", "m")
    with ConversationStore.open(other) as store:
        assert store.list() == []
    assert conversations_path(vault) != conversations_path(other)


def test_errors_are_vaultctx_errors() -> None:
    for error in (AmbiguousConversationError, UnknownConversationError, StoreFromNewerVersionError):
        assert issubclass(error, VaultctxError)


def test_many_openers_of_a_new_store_at_once(vault: Path) -> None:
    """A chat and `conversations list` in another terminal may both be the first to open it."""
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def open_and_write(n: int) -> None:
        try:
            barrier.wait()
            with ConversationStore.open(vault) as store:
                chat = store.new(f"chat {n}", "b", "m")
                store.append(chat.id, [Message("user", f"message {n}")])
        except BaseException as exc:  # reported below, with the thread's own traceback
            errors.append(exc)

    threads = [threading.Thread(target=open_and_write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with ConversationStore.open(vault) as store:
        assert store.count() == 8


def test_an_id_already_taken_is_drawn_again(
    store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids are 40 random bits: two conversations may draw the same one, and the second must
    not fail or overwrite the first."""
    from vaultctx.conversations import store as store_module

    draws = iter(["aaaaaaaa", "aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(store_module, "_new_id", lambda: next(draws))
    first = store.new("first", "b", "m")
    second = store.new("second", "b", "m")
    assert (first.id, second.id) == ("aaaaaaaa", "bbbbbbbb")
    assert store.get("aaaaaaaa").title == "first"
