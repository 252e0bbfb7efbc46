"""Commands on a PostgreSQL ``--db``: ``status`` and ``doctor``
name the server (version, pgvector, TLS, the vault's schema), and hooks installed with such a
``--db`` search that same index (docs/postgres.md, "What works the same, and what differs")."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.cli_support import agent_env, ollama_toml
from tests.agent.fakes import Answer, OllamaFake
from tests.clean_env import clean_cli_env
from tests.cli_in_process import run_vaultctx as run_in_process
from vaultctx.db_location import PostgresLocation, default_db_path


def run_vaultctx(dirs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vaultctx ARGS`` with private user folders under ``dirs``, in the test process
    (tests/cli_in_process.py); the installed hook and ``ask`` below keep real processes."""
    return run_in_process(args, env=clean_cli_env(dirs))


def _indexed(dirs: Path, vault: Path, db: str) -> None:
    done = run_vaultctx(dirs, "index", "--fast", "--vault", str(vault), "--db", db)
    assert done.returncode == 0, done.stderr


def test_status_and_doctor_name_the_server(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    _indexed(tmp_path, example_vault, postgres_url)
    where = ("--vault", str(example_vault), "--db", postgres_url)
    info = json.loads(run_vaultctx(tmp_path, "status", *where, "--json").stdout)
    schema = PostgresLocation(url=postgres_url, vault=str(example_vault.resolve())).schema
    assert info["store"] == "postgresql"
    assert info["server_version"].split(".")[0] == "18"
    assert info["pgvector_version"] == "0.8.5"
    assert info["tls"] is False  # the test server listens on a Unix socket
    assert info["schema"] == schema
    table = run_vaultctx(tmp_path, "status", *where).stdout
    assert "pgvector" in table and schema in table and "sqlite-vec" not in table
    report = json.loads(run_vaultctx(tmp_path, "doctor", *where, "--json").stdout)
    checks = {check["check"]: check for check in report["checks"]}
    assert report["ok"], report
    assert checks["server"]["status"] == "ok"
    assert "pgvector 0.8.5" in checks["server"]["detail"]
    assert "no TLS" in checks["server"]["detail"] and schema in checks["server"]["detail"]
    assert "sqlite integrity" not in checks and checks["index integrity"]["status"] == "ok"


def test_status_of_a_sqlite_file_names_no_server(example_vault: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "index.db")
    _indexed(tmp_path, example_vault, db)
    where = ("--vault", str(example_vault), "--db", db)
    info = json.loads(run_vaultctx(tmp_path, "status", *where, "--json").stdout)
    assert info["store"] == "sqlite"
    assert info["server_version"] is None and info["schema"] is None
    report = json.loads(run_vaultctx(tmp_path, "doctor", *where, "--json").stdout)
    assert "server" not in {check["check"] for check in report["checks"]}


def _hook_command(settings: Path) -> str:
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    command: str = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    return command


def test_hooks_installed_with_a_postgres_db_search_it(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    """The hook finds the notes only in PostgreSQL: no local index file exists for the vault,
    so a hook that lost the ``--db`` would find nothing to add."""
    _indexed(tmp_path, example_vault, postgres_url)
    project = tmp_path / "project"
    project.mkdir()
    installed = run_vaultctx(
        tmp_path,
        "hooks",
        "install",
        "--vault",
        str(example_vault),
        "--db",
        postgres_url,
        "--project",
        str(project),
    )
    assert installed.returncode == 0, installed.stderr
    words = shlex.split(_hook_command(project / ".claude" / "settings.json"))
    url = words[words.index("--db") + 1]
    assert url.startswith("postgresql://") and ":@" not in url and "password" not in url
    event = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s1",
        "prompt": "how is the billing service deployed and configured?",
        "cwd": str(project),
    }
    ran = subprocess.run(
        words,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
        env=clean_cli_env(tmp_path),
    )
    assert ran.returncode == 0, ran.stderr
    assert "Deploy config" in json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        assert not default_db_path(example_vault).exists()


def test_ask_sends_the_passages_it_found_in_postgres(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    """``ask`` searches the PostgreSQL index through the same calls as the file's: the passage
    that answers goes to the model (an Ollama fake speaking its wire protocol)."""
    _indexed(tmp_path, example_vault, postgres_url)
    with OllamaFake() as fake:
        fake.queue(Answer(["WAL mode lets readers work while one writer writes."]))
        env = agent_env(tmp_path, "[agent]\n" + ollama_toml(fake) + "translate = false\n")
        argv = [sys.executable, "-m", "vaultctx", "ask", "why does WAL mode help with locking?"]
        argv += ["--vault", str(example_vault), "--db", postgres_url]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        sent = [r for r in fake.requests if r.method == "POST"]
    assert done.returncode == 0, done.stderr
    assert "SQLite tuning#WAL mode" in json.dumps(sent[-1].json, ensure_ascii=False)


def test_a_second_index_run_redoes_no_vectors(
    example_vault: Path, tmp_path: Path, postgres_url: str
) -> None:
    """The pass-2 and multilingual vectors of an unchanged vault are kept, as in the SQLite file:
    their tables' layout is pgvector's ``halfvec[…]``, which is no sign of a changed model."""
    where = ("--vault", str(example_vault), "--db", postgres_url)
    first = run_vaultctx(tmp_path, "index", *where, "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(run_vaultctx(tmp_path, "status", *where, "--json").stdout)["quality_vectors"]
    again = run_vaultctx(tmp_path, "index", *where, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["warnings"] == []
    assert "model changed" not in again.stderr and "embedding" not in again.stderr


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_doctor_on_no_index_advises_building_it_not_rebuilding(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    db = str(tmp_path / "index.db") if kind == "sqlite" else request.getfixturevalue("postgres_url")
    done = run_vaultctx(tmp_path, "doctor", "--json", "--vault", str(vault), "--db", db)
    [check] = json.loads(done.stdout)["checks"]
    assert done.returncode == 1 and check["status"] == "fail"
    assert "vaultctx index --vault" in check["advice"] and "--full" not in check["advice"]
    assert "kept aside" not in check["advice"]


def test_doctor_on_an_unreachable_server_says_so_not_rebuild(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    url = "postgresql://alice@127.0.0.1:1/notes?sslmode=disable"  # nothing listens on port 1
    done = run_vaultctx(tmp_path, "doctor", "--json", "--vault", str(vault), "--db", url)
    [check] = json.loads(done.stdout)["checks"]
    assert done.returncode == 1 and "cannot reach PostgreSQL" in check["detail"]
    assert "--full" not in check["advice"] and "running" in check["advice"]
