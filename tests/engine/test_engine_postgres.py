"""The engine holds PostgreSQL indexes as it holds SQLite files: keyed by the vault and the
URL (no password), several vaults of one database at once, answering as the command would
in-process. A URL that may carry a password never crosses the socket, and a command whose
libpq environment is not the engine's runs in-process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_example_vault
from tests.engine.conftest import (
    by_engine,
    engine_answers,
    engine_env,
    rest,
    vaultctx,
    wait_for,
    without_timing,
)
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

QUERY = ("search", "vault notes", "--limit", "3")


def _args(vault: Path, url: str, *args: str) -> list[str]:
    return [*args, "--vault", str(vault), "--db", url]


@pytest.fixture
def vaults(tmp_path: Path, postgres_url: str) -> tuple[Path, Path]:
    """Two vaults indexed into one PostgreSQL database (a schema each)."""
    pair = (copy_example_vault(tmp_path / "one"), copy_example_vault(tmp_path / "two"))
    (pair[1] / "Only in two.md").write_text("# Only in two\n\nThe lighthouse keeper's log.\n")
    for vault in pair:
        done = vaultctx(_args(vault, postgres_url, "index", "--fast"), in_process=True)
        assert done.returncode == 0, done.stderr
    return pair


def test_the_engine_answers_for_several_vaults_of_one_database(
    vaults: tuple[Path, Path], postgres_url: str, folder: Path
) -> None:
    one, two = vaults
    first = vaultctx(_args(one, postgres_url, *QUERY))
    assert first.returncode == 0 and not by_engine(first), first.stderr
    wait_for(engine_answers, "the engine started by the first command answers")
    for vault in (one, two):
        for args in ([*QUERY], [*QUERY, "--json"], ["status"], ["search", "lighthouse keeper"]):
            engine = vaultctx(_args(vault, postgres_url, *args))
            here = vaultctx(_args(vault, postgres_url, *args), in_process=True)
            assert by_engine(engine), (args, engine.stderr)
            assert engine.returncode == here.returncode == 0, args
            assert without_timing(engine.stdout) == without_timing(here.stdout), args
            assert rest(engine) == rest(here), args
    assert "Only in two" in vaultctx(_args(two, postgres_url, "search", "lighthouse")).stdout
    assert "Only in two" not in vaultctx(_args(one, postgres_url, "search", "lighthouse")).stdout
    _hello, status = client.request({"op": "status"})
    held = {(entry["vault"], entry["db"]) for entry in status["vaults"]}
    assert {(str(one.resolve()), postgres_url), (str(two.resolve()), postgres_url)} <= held


def test_a_url_with_a_password_never_reaches_the_engine(
    vaults: tuple[Path, Path], postgres_url: str, folder: Path
) -> None:
    one, _two = vaults
    vaultctx(["engine", "start"])
    wait_for(engine_answers, "the engine answers")
    with_password = postgres_url.replace("postgres:@", "postgres:hunter2-secret@", 1)
    assert with_password != postgres_url
    done = vaultctx(_args(one, with_password, *QUERY))
    assert not by_engine(done)
    assert done.returncode != 0 and "password" in done.stderr  # refused in-process, as ever
    _hello, status = client.request({"op": "status"})
    assert all("hunter2" not in entry["db"] for entry in status["vaults"])
    assert "hunter2" not in (folder / runtime.LOG_NAME).read_text()


def test_another_pgpassfile_runs_in_process(
    vaults: tuple[Path, Path], postgres_url: str, folder: Path, tmp_path: Path
) -> None:
    """The engine reads the password from its own PGPASSFILE: another one is another answer."""
    one, _two = vaults
    vaultctx(_args(one, postgres_url, *QUERY))  # starts the engine
    wait_for(engine_answers, "the engine answers")
    assert by_engine(vaultctx(_args(one, postgres_url, *QUERY)))
    passfile = tmp_path / "pgpass"
    passfile.write_text("")
    passfile.chmod(0o600)
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", *_args(one, postgres_url, *QUERY)],
        capture_output=True,
        text=True,
        env={**engine_env(), "PGPASSFILE": str(passfile)},
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert not by_engine(done)
    assert "the engine runs with another PGPASSFILE" in done.stderr


@pytest.mark.parametrize(
    ("url", "holds"),
    [
        ("postgresql://alice@db.example.com:5432/vaultctx", False),
        ("postgresql://alice:@db.example.com/vaultctx", False),  # empty: none, as libpq reads it
        ("postgresql://alice@/vaultctx?host=/run/postgresql", False),
        ("postgresql://[::1]:5432/vaultctx", False),
        ("postgresql://alice:hunter2@db.example.com/vaultctx", True),
        ("postgres://alice:p@ss@db.example.com/vaultctx", True),
        ("postgresql://db.example.com/vaultctx?password=hunter2", True),
        ("postgresql://db.example.com/vaultctx?sslmode=require&PASSWORD=hunter2", True),
    ],
)
def test_which_urls_may_hold_a_password(url: str, holds: bool) -> None:
    from vaultctx.cli.forward import _may_hold_password

    assert _may_hold_password(url) is holds
