"""`--db` / `DB_PATH` can name any file: only a file that is provably a vaultctx index is ever
written, migrated, rebuilt or deleted (docs/security.md, "The index file")."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import apsw
import pytest

from tests.cli_in_process import run_vaultctx
from vaultctx.config import Config, ConfigError, load_config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import (
    IndexFromNewerVersionError,
    NotAnIndexError,
    open_index,
)
from vaultctx.index.indexer import Indexer
from vaultctx.index.ownership import APPLICATION_ID
from vaultctx.index.set_aside import set_aside_damaged


def _index(vault: Path, db: Path, embedder: StaticEmbedder) -> None:
    Indexer(Config(vault=vault, db=db), embedder).run(fast=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as the user runs it, in the test process (tests/cli_in_process.py)."""
    return run_vaultctx(args)


def test_a_text_file_named_by_db_is_refused_and_kept(vault: Path, tmp_path: Path) -> None:
    thesis = tmp_path / "thesis.txt"
    thesis.write_text("Chapter 1. Four years of work.\n")
    done = _cli("index", "--fast", "--vault", str(vault), "--db", str(thesis))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a vaultctx index" in done.stderr and "--db" in done.stderr
    assert "Traceback" not in done.stderr
    assert thesis.read_text() == "Chapter 1. Four years of work.\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis.txt", "vault"]


def test_a_note_inside_the_vault_is_refused_as_db(vault: Path) -> None:
    note = vault / "plan.md"
    before = note.read_bytes()
    done = _cli("index", "--fast", "--vault", str(vault), "--db", str(note))
    assert done.returncode == 2 and "inside the vault" in done.stderr
    assert note.read_bytes() == before
    with pytest.raises(ConfigError, match="inside the vault"):
        load_config(vault, vault / "sub" / "new-index.db")


def test_another_applications_database_is_left_alone(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    other = tmp_path / "photos.sqlite"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE albums(id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO albums(name) VALUES ('summer')")
    conn.close()
    before = other.read_bytes()
    with pytest.raises(NotAnIndexError, match="did not create"):
        _index(vault, other, embedder)
    with pytest.raises(NotAnIndexError):
        open_index(other, readonly=True)
    assert other.read_bytes() == before


def test_a_database_stamped_by_another_application_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "app.db"
    conn = apsw.Connection(str(other))
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE chunks(x)")  # even with a table name we use
    conn.close()
    with pytest.raises(NotAnIndexError, match="another application"):
        open_index(other)
    with pytest.raises(NotAnIndexError):
        set_aside_damaged(other)
    assert other.exists()


def test_a_directory_or_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotAnIndexError, match="not a regular file"):
        open_index(tmp_path)
    with pytest.raises(NotAnIndexError, match="not a regular file"):
        open_index(Path(os.devnull))


def test_our_index_is_stamped_private_and_versioned(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "data" / "index.db"
    _index(vault, db, embedder)
    header = db.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert int.from_bytes(header[60:64], "big") > 0  # user_version: the schema
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_an_index_from_a_newer_vaultctx_is_refused_not_rebuilt(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    _index(vault, db, embedder)
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    before = db.read_bytes()
    with pytest.raises(IndexFromNewerVersionError) as raised:
        _index(vault, db, embedder)
    assert "upgrade vaultctx" in raised.value.suggestion
    with pytest.raises(IndexFromNewerVersionError):
        open_index(db, readonly=True)
    assert db.read_bytes() == before


def test_an_unknown_migration_is_refused_not_rebuilt(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    _index(vault, db, embedder)
    conn = apsw.Connection(str(db))
    conn.execute("INSERT INTO _migrations(name, applied_at) VALUES ('m999_future', 0)")
    conn.close()
    done = _cli("index", "--fast", "--vault", str(vault), "--db", str(db))
    assert done.returncode == 2 and "upgrade vaultctx" in done.stderr


def test_our_damaged_index_is_still_rebuilt(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    _index(vault, db, embedder)
    data = bytearray(db.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # header (and its stamp) intact, pages destroyed
    db.write_bytes(bytes(data))
    report = Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    assert report.full and report.added == 1 and report.warnings


def test_an_index_made_before_the_stamp_is_adopted(
    vault: Path, tmp_path: Path, embedder: StaticEmbedder
) -> None:
    db = tmp_path / "index.db"
    _index(vault, db, embedder)
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA application_id = 0")
    conn.execute("PRAGMA user_version = 0")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    os.chmod(db, 0o644)
    report = Indexer(Config(vault=vault, db=db), embedder).run(fast=True)
    assert not report.full and report.unchanged == 1
    assert int.from_bytes(db.read_bytes()[68:72], "big") == APPLICATION_ID
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
