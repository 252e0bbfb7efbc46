"""A damaged index is the user's to rebuild, not a bug to report (docs/security.md, "A damaged
index"): every command says what is wrong and how to fix it, `vaultctx index --full` keeps our
damaged file aside and rebuilds from the vault, and a file that is not provably ours is never
touched, damaged or not.

Real index over a small vault, real damage (8 KB of noise written into the file), the real CLI
run in the test process (tests/cli_in_process.py; `serve --http` below stays a real process)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
import pytest

from tests.cli_in_process import run_vaultctx
from vaultctx.config import Config
from vaultctx.embed.static import StaticEmbedder
from vaultctx.index.db import NotAnIndexError
from vaultctx.index.indexer import Indexer
from vaultctx.index.ownership import APPLICATION_ID

DAMAGE_BYTES = 8192
PAGE = 4096
NOTES = 40


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A vault and the bytes of its freshly built index (WAL checkpointed into the file)."""
    root = tmp_path_factory.mktemp("corrupt")
    vault = root / "vault"
    vault.mkdir()
    for n in range(NOTES):
        words = " ".join(f"lighthouse{n} keeper log entry {k} tide beacon" for k in range(20 + n))
        text = f"---\ntags: [log, n{n}]\n---\n# Log {n}\n\n{words}\n\nNext: [[Log {n + 1}]]\n"
        (vault / f"Log {n}.md").write_text(text, encoding="utf-8")
    db = root / "index.db"
    Indexer(Config(vault=vault, db=db), StaticEmbedder()).run(fast=True)
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    return vault, db.read_bytes()


def _fresh(built: tuple[Path, bytes], tmp_path: Path) -> tuple[Path, Path]:
    vault, data = built
    copy = tmp_path / "vault"
    shutil.copytree(vault, copy)
    db = tmp_path / "data" / "index.db"
    db.parent.mkdir()
    db.write_bytes(data)
    os.chmod(db, 0o600)
    return copy, db


def _damage(db: Path, offset: int, length: int = DAMAGE_BYTES) -> bytes:
    noise = random.Random(offset).randbytes(length)
    with open(db, "r+b") as handle:
        handle.seek(offset)
        handle.write(noise)
    return db.read_bytes()


def _pages_of(db: Path, table: str) -> list[int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,)).fetchall()
    finally:
        conn.close()
    return sorted(int(str(r[0])) for r in rows)


def _cli(vault: Path, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VAULTCTX_DEBUG"}
    done = run_vaultctx([*args, "--vault", str(vault), "--db", str(db)], env=env)
    out = done.stdout + done.stderr
    assert "internal error" not in out and "Traceback" not in out, out
    return done


def _flat(text: str) -> str:
    """Rich wraps long lines at the terminal width; the tests read the words, not the breaks."""
    return re.sub(r"\s+", " ", text)


def _set_aside(folder: Path) -> list[Path]:
    """The damaged files kept aside (their -wal kept beside them not counted)."""
    return sorted(p for p in folder.glob("index.db.corrupt-*") if not p.name.endswith("-wal"))


# Where the noise goes: the middle of the file (the case), just after the 100-byte
# header (the schema page: nothing is readable, but the application id still says "ours"), and
# the file's last 8 KB.
PLACES: dict[str, Callable[[int], int]] = {
    "middle": lambda size: (size // 2) // PAGE * PAGE,
    "schema page": lambda size: 100,
    "last pages": lambda size: size - DAMAGE_BYTES,
}


@pytest.mark.parametrize("place", list(PLACES))
def test_damage_is_reported_then_index_full_rebuilds(
    built: tuple[Path, bytes], tmp_path: Path, place: str
) -> None:
    vault, db = _fresh(built, tmp_path)
    damaged = _damage(db, PLACES[place](db.stat().st_size))

    search = _cli(vault, db, "search", "lighthouse7 beacon")
    assert search.returncode in (0, 2)  # 0 only when the damage is on pages it does not read
    if search.returncode == 2:
        said = _flat(search.stderr)
        assert f"the index {db} is damaged" in said and "vaultctx index --full" in said
    status = _cli(vault, db, "status")
    assert status.returncode in (0, 2)
    if status.returncode == 2:
        assert "is damaged" in _flat(status.stderr)
    doctor = _cli(vault, db, "doctor")
    assert doctor.returncode == 1
    assert "fail" in doctor.stdout and "vaultctx index --full" in _flat(doctor.stdout)
    assert db.read_bytes() == damaged  # reading never writes

    rebuilt = _cli(vault, db, "index", "--full", "--fast")
    assert rebuilt.returncode == 0, rebuilt.stderr
    said = _flat(rebuilt.stderr)
    assert "rebuilding it from the vault" in said
    [aside] = _set_aside(db.parent)
    assert f"kept as {aside}" in said
    assert aside.read_bytes() == damaged
    assert stat.S_IMODE(aside.stat().st_mode) == 0o600
    assert f"{NOTES} added" in _flat(rebuilt.stdout)

    found = _cli(vault, db, "search", "lighthouse7 beacon", "--json")
    assert found.returncode == 0 and "Log 7.md" in found.stdout
    assert _cli(vault, db, "doctor").returncode == 0


def test_a_damaged_page_met_by_an_incremental_run_rebuilds(
    built: tuple[Path, bytes], tmp_path: Path
) -> None:
    """The open and the start of the run read a few pages only: the files table's damage is
    met mid-run, when the changed note is looked up, and the run starts over from the vault."""
    vault, db = _fresh(built, tmp_path)
    for page in _pages_of(db, "files"):
        _damage(db, (page - 1) * PAGE, PAGE)
    (vault / "Log 3.md").write_text("# Log 3\n\nThe keeper saw a comet.\n", encoding="utf-8")

    done = _cli(vault, db, "index", "--fast", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    [aside] = _set_aside(db.parent)
    assert summary["damaged_kept_as"] == str(aside) and summary["full"]
    assert any("rebuilding it from the vault" in warning for warning in summary["warnings"])
    found = _cli(vault, db, "search", "comet", "--json")
    assert found.returncode == 0 and "Log 3.md" in found.stdout


def test_a_damaged_header_is_refused_and_kept(built: tuple[Path, bytes], tmp_path: Path) -> None:
    """Noise over the 100-byte header erases the application id: the file is no longer
    provably ours, so it is refused like any foreign file, never moved or rebuilt."""
    vault, db = _fresh(built, tmp_path)
    damaged = _damage(db, 0)
    for command in (["index", "--fast"], ["index", "--full", "--fast"], ["search", "beacon"]):
        done = _cli(vault, db, *command)
        assert done.returncode == 2
        assert "not a vaultctx index" in _flat(done.stderr)
    assert _cli(vault, db, "doctor").returncode == 1
    assert db.read_bytes() == damaged
    assert _set_aside(db.parent) == []


@pytest.mark.parametrize("damaged", [False, True])
def test_another_applications_database_is_refused_and_left_byte_identical(
    built: tuple[Path, bytes], tmp_path: Path, damaged: bool
) -> None:
    vault, _db = _fresh(built, tmp_path)
    other = tmp_path / "data" / "app.db"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE notes(body TEXT)")
    conn.executemany("INSERT INTO notes VALUES (?)", [("x" * 3000,) for _ in range(40)])
    conn.close()
    before = _damage(other, other.stat().st_size // 2) if damaged else other.read_bytes()
    commands = (
        ["index", "--fast"],
        ["index", "--full", "--fast"],
        ["doctor"],
        ["search", "beacon"],
        ["status"],
    )
    for command in commands:
        done = _cli(vault, other, *command)
        assert done.returncode in (1, 2)
        assert "not a vaultctx index" in _flat(done.stdout + done.stderr)
    assert other.read_bytes() == before
    assert sorted(p.name for p in other.parent.iterdir()) == ["app.db", "index.db"]


def test_set_aside_keeps_the_wal_and_refuses_a_foreign_file(tmp_path: Path) -> None:
    from vaultctx.index.set_aside import set_aside_damaged

    db = tmp_path / "index.db"
    conn = apsw.Connection(str(db))
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.close()
    Path(f"{db}-wal").write_bytes(b"frames")
    Path(f"{db}-shm").write_bytes(b"index of frames")
    aside = set_aside_damaged(db)
    assert aside.name.startswith("index.db.corrupt-") and not db.exists()
    assert Path(f"{aside}-wal").read_bytes() == b"frames"
    assert not Path(f"{db}-shm").exists() and not Path(f"{db}-wal").exists()

    foreign = tmp_path / "app.db"
    conn = apsw.Connection(str(foreign))
    conn.execute("CREATE TABLE t(x)")
    conn.close()
    with pytest.raises(NotAnIndexError):
        set_aside_damaged(foreign)
    assert foreign.exists() and not list(tmp_path.glob("app.db.corrupt-*"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_server_answers_with_the_fix(
    built: tuple[Path, bytes], tmp_path: Path
) -> None:
    """A client's search over a damaged index gets ``{error, suggestion}``, not a crash of the
    tool (or of the warm-up thread that opens the index first)."""
    from mcp import Client
    from tests.mcp.conftest import tool_error
    from vaultctx.api import Vault
    from vaultctx.mcp.server import build_server

    vault, db = _fresh(built, tmp_path)
    for page in _pages_of(db, "chunks_fts_data"):
        _damage(db, (page - 1) * PAGE, PAGE)
    async with Client(build_server(Vault(vault, db=db)), mode="legacy") as client:
        for mode in ("bm25", "hybrid"):
            result = await client.call_tool(
                "obsidian_search", {"query": "lighthouse7 beacon", "mode": mode}
            )
            error = tool_error(result)
            assert f"the index {db} is damaged" in error["error"]
            assert "vaultctx index --full" in error["suggestion"]


def test_a_long_running_handle_reads_the_rebuilt_index(
    built: tuple[Path, bytes], tmp_path: Path
) -> None:
    """A server's ``Vault`` keeps its index open between calls: after reporting the damage it
    lets go of the damaged file, so once `index --full` has rebuilt it the same handle answers
    (else it would read the file set aside until restarted)."""
    from vaultctx.api import Vault
    from vaultctx.index.db import IndexNeedsRebuildError

    vault, db = _fresh(built, tmp_path)
    for page in _pages_of(db, "chunks_fts_data"):
        _damage(db, (page - 1) * PAGE, PAGE)
    with Vault(vault, db=db) as handle:
        with pytest.raises(IndexNeedsRebuildError, match="is damaged"):
            handle.search("lighthouse7 beacon", mode="bm25")
        assert _cli(vault, db, "index", "--full", "--fast").returncode == 0
        found = handle.search("lighthouse7 beacon", mode="bm25")
        assert found.results and found.results[0].file_path == "Log 7.md"


def test_serve_http_answers_with_the_fix_and_keeps_serving(
    built: tuple[Path, bytes], tmp_path: Path
) -> None:
    """`serve --http` as a real process over a damaged index: the tool call gets the advice,
    the server neither crashes nor logs a traceback, and answers again once rebuilt."""
    import anyio
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from mcp import Client
    from tests.mcp.conftest import start_http_server, stop, tool_error, wait_until_listening

    vault, db = _fresh(built, tmp_path)
    for page in _pages_of(db, "chunks_fts_data"):
        _damage(db, (page - 1) * PAGE, PAGE)

    async def search() -> Any:
        timeout = httpx2.Timeout(30.0, read=120.0)
        async with (
            httpx2.AsyncClient(timeout=timeout) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            query = {"query": "lighthouse7 beacon", "mode": "bm25"}
            return await client.call_tool("obsidian_search", query)

    server = start_http_server(["serve", "--vault", str(vault), "--db", str(db), "--no-token"])
    try:
        wait_until_listening(server)
        error = tool_error(anyio.run(search))
        assert f"the index {db} is damaged" in error["error"]
        assert "vaultctx index --full" in error["suggestion"]
        assert _cli(vault, db, "index", "--full", "--fast").returncode == 0
        found = anyio.run(search)
        assert not found.is_error
        assert found.structured_content["results"][0]["path"] == "Log 7.md"
        assert server.process.poll() is None
    finally:
        stop(server)
    logged = server.process.stderr.read().decode(errors="replace") if server.process.stderr else ""
    assert "Traceback" not in logged, logged
