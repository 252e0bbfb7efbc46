"""Only a file that is provably a conversation store is ever opened for writing; anything else
at its path is refused with advice and left byte for byte as it was."""

from __future__ import annotations

import sys
from pathlib import Path

import apsw
import pytest

from vaultctx.conversations import (
    ConversationStore,
    NotAConversationStoreError,
    StoreUnwritableError,
    conversations_path,
)
from vaultctx.index.ownership import APPLICATION_ID as INDEX_APPLICATION_ID


def _place(vault: Path) -> Path:
    path = conversations_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _foreign_sqlite(path: Path, application_id: int = 0) -> None:
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, caption TEXT)")
    conn.execute("INSERT INTO photos(caption) VALUES ('holiday')")
    if application_id:
        conn.execute(f"PRAGMA application_id = {application_id}")
    conn.close()


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda p: _foreign_sqlite(p), "another application_id (0x0)"),
        (lambda p: _foreign_sqlite(p, INDEX_APPLICATION_ID), "0x76637478"),
        (lambda p: p.write_text("my thesis\n" * 20, encoding="utf-8"), "is not a SQLite database"),
    ],
    ids=["foreign-sqlite", "a-vaultctx-index", "text-file"],
)
def test_a_file_that_is_not_ours_is_refused_and_untouched(
    vault: Path, make: object, what: str
) -> None:
    path = _place(vault)
    make(path)  # type: ignore[operator]
    before = path.read_bytes()
    for create in (True, False):
        with pytest.raises(NotAConversationStoreError) as raised:
            ConversationStore.open(vault, create=create)
        assert what in raised.value.message
        assert "never overwrites or deletes" in raised.value.message
        assert raised.value.suggestion.startswith("move that file out of")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_a_symbolic_link_is_refused(vault: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.db"
    with ConversationStore.open(vault) as store:
        store.new("real", "b", "m")
    path = conversations_path(vault)
    path.rename(target)
    path.symlink_to(target)
    with pytest.raises(NotAConversationStoreError, match="symbolic link"):
        ConversationStore.open(vault)


def test_an_empty_file_is_taken_over(vault: Path) -> None:
    """Zero bytes is what a crash before the first write leaves: nothing to lose."""
    path = _place(vault)
    path.write_bytes(b"")
    with ConversationStore.open(vault) as store:
        store.new("fresh", "b", "m")
        assert len(store.list()) == 1


def test_the_index_and_the_store_never_share_a_file(vault: Path) -> None:
    from vaultctx.config import default_db_path

    assert conversations_path(vault).parent == default_db_path(vault).parent / "conversations"


def test_an_unwritable_data_dir_is_an_error(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(blocker / name))
    with pytest.raises(StoreUnwritableError) as raised:
        ConversationStore.open(vault)
    assert "cannot create the conversation store" in raised.value.message
    assert raised.value.suggestion
