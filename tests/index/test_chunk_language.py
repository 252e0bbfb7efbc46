"""Chunk languages at index time, and migration m007 on an index of the schema before it."""

from __future__ import annotations

from pathlib import Path

import apsw

from vaultctx.api import Vault
from vaultctx.config import Config, Settings
from vaultctx.index.db import open_index
from vaultctx.index.languages import chunk_languages

NOTES = {
    "compost.md": "# Compost\n\nTurn the heap weekly; mix kitchen greens with dry leaves.\n",
    "퇴비.md": "# 퇴비\n\n일주일에 한 번 뒤집어 공기를 넣어 준다. 마른 낙엽을 섞는다.\n",
    "git.md": "# git\n\n`git commit -m 메시지` 명령으로 변경 사항을 기록합니다.\n",
}


def _indexed(root: Path) -> Vault:
    (root / "vault").mkdir()
    for name, text in NOTES.items():
        (root / "vault" / name).write_text(text, encoding="utf-8")
    vault = Vault(config=Config(root / "vault", root / "index.db", Settings(quality_engine="")))
    vault.index(fast=True)
    return vault


def _languages_by_note(db_path: Path) -> dict[str, set[str]]:
    db = open_index(db_path, readonly=True)
    try:
        rows = db.execute(
            "SELECT f.path, c.lang FROM chunks c JOIN files f ON f.id = c.file_id"
        ).fetchall()
    finally:
        db.close()
    found: dict[str, set[str]] = {}
    for path, lang in rows:
        found.setdefault(str(path), set()).add(str(lang))
    return found


def test_each_chunk_is_stored_with_its_language(tmp_path: Path) -> None:
    vault = _indexed(tmp_path)
    assert _languages_by_note(vault.db_path) == {
        "compost.md": {"en"},
        "퇴비.md": {"ko"},
        "git.md": {"ko"},
    }
    db = open_index(vault.db_path, readonly=True)
    try:
        assert chunk_languages(db) == {"en": 1, "ko": 2}
    finally:
        db.close()


def test_an_index_from_before_m007_gets_its_languages_without_reindexing(tmp_path: Path) -> None:
    vault = _indexed(tmp_path)
    # Take the index back to the schema m001–m006 built: no language, no multilingual stamp.
    conn = apsw.Connection(str(vault.db_path))
    conn.execute(
        "DROP INDEX chunks_lang; ALTER TABLE chunks DROP COLUMN lang; "
        "ALTER TABLE chunks DROP COLUMN multi_embedded_at; "
        "DELETE FROM model_meta WHERE key = 'chunk_languages'; "
        "DELETE FROM _migrations WHERE name = 'm007_chunk_language'; PRAGMA user_version = 6"
    )
    written = conn.execute("SELECT max(id) FROM chunks").fetchall()[0][0]
    conn.close()

    report = vault.index(fast=True)  # opening the index migrates it
    assert report.chunks_written == 0  # nothing re-read or re-embedded
    assert _languages_by_note(vault.db_path)["퇴비.md"] == {"ko"}
    db = open_index(vault.db_path, readonly=True)
    try:
        assert chunk_languages(db) == {"en": 1, "ko": 2}
        assert db.scalar("SELECT max(id) FROM chunks") == written
    finally:
        db.close()
