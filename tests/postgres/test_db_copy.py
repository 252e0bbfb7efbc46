"""``vaultctx db copy``: an index moves between the SQLite file and PostgreSQL with its vectors,
answers the same searches afterwards, is never merged into an index already there, and a later
``index`` run over the copy has nothing to do (docs/postgres.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.clean_env import ENGINE_OFF
from tests.cli_in_process import run_vaultctx
from tests.postgres.conftest import assert_same_searches
from tests.postgres.test_same_answers import QUERIES
from vaultctx.config import Config, Settings
from vaultctx.db_location import PostgresLocation
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.copy import TargetNotEmptyError, copy_index
from vaultctx.index.db import open_index
from vaultctx.index.indexer import Indexer
from vaultctx.index.schema import VECTOR_TABLE
from vaultctx.index.vector_queries import stored_vectors


def _vaultctx(*args: str) -> subprocess.CompletedProcess[str]:
    """In the test process (tests/cli_in_process.py): ``db copy`` needs no process of its own."""
    return run_vaultctx(args, env={**os.environ, **ENGINE_OFF})


def test_copy_to_postgres_and_back_answers_the_same(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    sqlite = tmp_path / "index.db"
    indexed = _vaultctx("index", "--fast", "--vault", str(example_vault), "--db", str(sqlite))
    assert indexed.returncode == 0, indexed.stderr
    copied = _vaultctx(
        "db",
        "copy",
        "--vault",
        str(example_vault),
        "--db",
        str(sqlite),
        "--to",
        postgres_url,
        "--json",
    )
    assert copied.returncode == 0, copied.stderr
    report = json.loads(copied.stdout)
    postgres = PostgresLocation(postgres_url, str(example_vault.resolve()))
    a, b = open_index(sqlite, readonly=True), open_index(postgres, readonly=True)
    try:
        assert report["rows"]["chunks"] == a.scalar("SELECT count(*) FROM chunks") > 0
        assert dict(stored_vectors(b, VECTOR_TABLE)) == dict(stored_vectors(a, VECTOR_TABLE))
    finally:
        a.close()
        b.close()
    assert_same_searches(example_vault, sqlite, postgres, QUERIES[:8])
    # Nothing left to do over the copy: no note read again, nothing embedded.
    again = Indexer(Config(vault=example_vault, db=postgres, settings=Settings()), StaticEmbedder())
    assert again.run(fast=True).chunks_written == 0

    back = tmp_path / "back.db"
    returned = _vaultctx(
        "db", "copy", "--vault", str(example_vault), "--db", postgres_url, "--to", str(back)
    )
    assert returned.returncode == 0, returned.stderr
    assert_same_searches(example_vault, sqlite, back, QUERIES[:8])


def test_a_target_that_holds_an_index_is_never_written(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    embedder = StaticEmbedder()
    sqlite = tmp_path / "index.db"
    postgres = PostgresLocation(postgres_url, str(example_vault.resolve()))
    for location in (sqlite, postgres):
        Indexer(Config(vault=example_vault, db=location, settings=Settings()), embedder).run(
            fast=True
        )
    target = open_index(postgres)
    before = target.scalar("SELECT count(*) FROM chunks")
    source = open_index(sqlite, readonly=True)
    try:
        with pytest.raises(TargetNotEmptyError) as refused:
            copy_index(source, target)
        assert refused.value.suggestion
        assert target.scalar("SELECT count(*) FROM chunks") == before
    finally:
        source.close()
        target.close()
    # Through the CLI: a plain error with the fix, no traceback, and the same index as before.
    done = _vaultctx(
        "db", "copy", "--vault", str(example_vault), "--db", str(sqlite), "--to", postgres_url
    )
    assert done.returncode != 0
    assert "already holds an index" in done.stderr and "Traceback" not in done.stderr


def test_copy_onto_itself_is_refused(example_vault: Path, tmp_path: Path) -> None:
    sqlite = tmp_path / "index.db"
    done = _vaultctx(
        "db", "copy", "--vault", str(example_vault), "--db", str(sqlite), "--to", str(sqlite)
    )
    assert done.returncode != 0 and "names the index being copied" in done.stderr
