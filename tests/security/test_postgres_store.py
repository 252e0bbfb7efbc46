"""The PostgreSQL store keeps the SQLite file's promises: a schema or registry vaultctx did not
create is never written, migrated or dropped; a newer vaultctx's schema is refused; no
credential reaches any table; only the user's own settings may send the index to a server; and
two indexers on one vault exclude each other (docs/postgres.md)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.postgres.test_commands import run_vaultctx
from tests.security.test_secrets_at_rest import SLACK, TOKEN, _metadata_note
from vaultctx.config import Config, ConfigError, load_config
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import (
    IndexFromNewerVersionError,
    IndexMissingError,
    IndexUnreachableError,
    NotAnIndexError,
    open_index,
)
from vaultctx.index.indexer import Indexer, IndexerBusyError
from vaultctx.index.postgres.lock import AdvisoryLock
from vaultctx.index.text_codec import unpack_text


def _index(vault: Path, db: PostgresLocation, embedder: StaticEmbedder) -> Any:
    return Indexer(Config(vault=vault, db=db), embedder).run(fast=True)


def _tables(url: str, schema: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,))
        return {str(r[0]) for r in rows}


def test_a_foreign_schema_of_the_same_name_is_never_written(
    vault: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    location = PostgresLocation(postgres_url, str(vault))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{location.schema}"')
        conn.execute(f'CREATE TABLE "{location.schema}".files (id int, payroll text)')
        conn.execute(f"INSERT INTO \"{location.schema}\".files VALUES (1, 'keep me')")
    with pytest.raises(NotAnIndexError) as refused:
        _index(vault, location, embedder)
    assert "not created by vaultctx" in refused.value.message
    with pytest.raises(NotAnIndexError):
        open_index(location, readonly=True)
    assert _tables(postgres_url, location.schema) == {"files"}
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute(f'SELECT payroll FROM "{location.schema}".files').fetchall() == [
            ("keep me",)
        ]


def test_a_foreign_registry_table_is_refused(
    vault: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.vaultctx_vaults (anything text)")
    with pytest.raises(NotAnIndexError):
        _index(vault, PostgresLocation(postgres_url, str(vault)), embedder)
    with psycopg.connect(postgres_url) as conn:
        schemas = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'v\\_%'")
        assert schemas.fetchall() == []


def test_vaults_share_a_database_in_schemas_of_their_own(
    tmp_path: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    found = {}
    for name in ("alpha", "beta"):
        root = tmp_path / name
        root.mkdir()
        (root / "note.md").write_text(f"# {name}\n\nonly in the {name} vault\n")
        location = PostgresLocation(postgres_url, str(root))
        _index(root, location, embedder)
        db = open_index(location, readonly=True)
        try:
            found[name] = [str(r[0]) for r in db.execute("SELECT title FROM files")]
        finally:
            db.close()
    assert found == {"alpha": ["alpha"], "beta": ["beta"]}
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT vault_path FROM public.vaultctx_vaults ORDER BY 1").fetchall()
    assert [Path(r[0]).name for r in rows] == ["alpha", "beta"]


def test_a_schema_from_a_newer_vaultctx_is_refused(
    vault: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    location = PostgresLocation(postgres_url, str(vault))
    _index(vault, location, embedder)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            f"INSERT INTO \"{location.schema}\"._migrations VALUES ('pg999_future', now())"
        )
    for readonly in (True, False):
        with pytest.raises(IndexFromNewerVersionError):
            open_index(location, readonly=readonly)


def test_no_secret_reaches_any_table(
    tmp_path: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    _metadata_note(vault)
    (vault / "body.md").write_text(f"# Body\n\nthe key is {TOKEN} and {SLACK}\n")
    location = PostgresLocation(postgres_url, str(vault))
    _index(vault, location, embedder)
    dumped = []
    with psycopg.connect(postgres_url) as conn:
        for schema in (location.schema, "public"):
            for table in _tables(postgres_url, schema):
                rows = conn.execute(f'SELECT t::text FROM "{schema}"."{table}" t').fetchall()
                dumped += [str(r[0]) for r in rows]
        dumped += [
            unpack_text(r[0]) for r in conn.execute(f'SELECT body FROM "{location.schema}".chunks')
        ]
    text = "\n".join(dumped).lower()  # the keyword tables hold lower-cased tokens
    assert "runbook" in text and "redacted" in text  # the dump reads what it should
    for secret in (TOKEN, TOKEN[4:], SLACK, SLACK[5:15]):
        assert secret.lower() not in text


def test_a_vaults_own_settings_cannot_choose_the_database(tmp_path: Path, vault: Path) -> None:
    (vault / "vaultctx.toml").write_text('db_url = "postgresql://attacker.example/notes"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(vault, env={}, user_config_dir=tmp_path / "config")
    assert "only your own settings file" in refused.value.message


def test_the_users_own_settings_choose_postgres(tmp_path: Path, vault: Path) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "vaultctx.toml").write_text('db_url = "postgresql://me@db.example/notes"\n')
    config = load_config(vault, env={}, user_config_dir=folder)
    assert config.db == PostgresLocation("postgresql://me@db.example/notes", str(vault.resolve()))
    assert load_config(vault, "/tmp/x.db", env={}, user_config_dir=folder).db == Path("/tmp/x.db")


def test_a_second_indexer_on_the_vault_is_told_to_wait(
    vault: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    location = PostgresLocation(postgres_url, str(vault))
    holder = AdvisoryLock(location)
    holder.acquire()
    try:
        with pytest.raises(IndexerBusyError):
            _index(vault, location, embedder)
    finally:
        holder.release()
    assert _index(vault, location, embedder).chunks_written > 0


def test_an_unreachable_server_and_a_missing_index_are_errors_with_advice(
    vault: Path, postgres_url: str
) -> None:
    with pytest.raises(IndexMissingError):
        open_index(PostgresLocation(postgres_url, str(vault)), readonly=True)
    gone = PostgresLocation("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", str(vault))
    with pytest.raises(IndexUnreachableError) as unreachable:
        open_index(gone, readonly=True)
    assert unreachable.value.suggestion


def test_a_server_gone_mid_session_is_an_error_with_advice(
    vault: Path, postgres_url: str, embedder: StaticEmbedder
) -> None:
    location = PostgresLocation(postgres_url, str(vault))
    _index(vault, location, embedder)
    db = open_index(location, readonly=True)
    try:
        pid = db.scalar("SELECT pg_backend_pid()")
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(IndexUnreachableError) as lost:
            db.execute("SELECT count(*) FROM files").fetchone()
        assert "lost the connection" in lost.value.message and lost.value.suggestion
    finally:
        db.close()


def test_a_password_in_db_on_the_command_line_is_refused_and_never_printed(
    vault: Path, postgres_url: str
) -> None:
    """The store opens connections through connect.py: a password typed into ``--db`` would sit
    in shell history and ``ps``, so it is refused before any connection, through the real CLI."""

    from tests.clean_env import ENGINE_OFF

    host = postgres_url.split("host=", 1)[1]
    url = f"postgresql://postgres:hunter2-Secret@/{postgres_url.rsplit('/', 1)[1]}"
    url = url.split("?", 1)[0] + f"?host={host}"
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", "index", "--fast", "--vault", str(vault), "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, **ENGINE_OFF},
    )
    assert done.returncode != 0
    assert "hunter2-Secret" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "keyring" in done.stderr or "PGPASSFILE" in done.stderr
    with psycopg.connect(postgres_url) as conn:
        schemas = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'v\\_%'")
        assert schemas.fetchone() == (0,)


def test_damaged_bookkeeping_is_reported_and_the_advised_command_repairs_it(
    vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    """PostgreSQL keeps its own pages; what can be wrong is our keyword statistics. ``doctor``
    fails with a command that works as written (the URL without a password, no "(schema …)"),
    and that ``index --full`` rebuilds them, where deltas would carry the damage over."""
    where = ("--vault", str(vault), "--db", postgres_url)
    assert run_vaultctx(tmp_path, "index", "--fast", *where).returncode == 0
    location = PostgresLocation(postgres_url, str(vault.resolve()))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'UPDATE "{location.schema}".fts_totals SET rows = rows + 7')
    doctor = run_vaultctx(tmp_path, "doctor", "--json", *where)
    assert doctor.returncode == 1
    [failed] = [c for c in json.loads(doctor.stdout)["checks"] if c["status"] == "fail"]
    assert failed["check"] == "index integrity" and "totals say" in failed["detail"]
    advised = shlex.split(failed["advice"].split("`")[1])
    assert advised[:3] == ["vaultctx", "index", "--full"] and "(schema" not in failed["advice"]
    repaired = run_vaultctx(tmp_path, *advised[1:], "--fast")
    assert repaired.returncode == 0, repaired.stderr
    assert "re-analysing every chunk" in repaired.stderr + repaired.stdout
    again = json.loads(run_vaultctx(tmp_path, "doctor", "--json", *where).stdout)
    assert again["ok"], again
