"""What the PostgreSQL connection tests share: a second private server that asks a role for its
password, the fixture that keeps the developer's own password sources out, and the CLI runner.

The shared test server (tests/postgres_server.py) trusts every local connection, and its settings
are everyone's; this one is ours alone, so its pg_hba.conf may demand a SCRAM password from one
role, ``vaultctx_pw``, over its Unix socket while still trusting the superuser that sets it up.
One is started per test module that asks for it (about two seconds) and stopped after.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clean_env import clean_cli_env
from tests.postgres_server import start_server
from vaultctx.index.postgres import connect as pg

REPO = Path(__file__).resolve().parents[2]
ROLE = "vaultctx_pw"
PASSWORD = "Tr0ub4dor-&-3-horse-battery"
DATABASE = "teamvault"


@dataclass(frozen=True)
class PasswordServer:
    socket_dir: str
    admin_url: str

    def url(self, *, user: str = ROLE, dbname: str = DATABASE, query: str = "") -> str:
        extra = f"&{query}" if query else ""
        return f"postgresql://{user}@/{dbname}?host={self.socket_dir}{extra}"

    def keyring_username(self, dbname: str = DATABASE) -> str:
        return f"{ROLE}@{self.socket_dir}:5432/{dbname}"


def _wait_for_password_rule(url: str) -> None:
    """The reload is a signal: poll (generously) until the server asks the role for a password."""
    import psycopg

    deadline = time.monotonic() + 60
    while True:
        try:
            psycopg.connect(url, connect_timeout=5).close()
        except psycopg.OperationalError as exc:
            if "no password supplied" in str(exc):
                return
            raise
        if time.monotonic() > deadline:
            raise AssertionError("the test server never started asking for the password")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def password_server() -> Iterator[PasswordServer]:
    import psycopg

    folder = Path(tempfile.mkdtemp(prefix="vaultctx-pgpw-"))
    try:
        server = start_server(folder)
        try:
            admin = server.admin_url
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
                conn.execute(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")
            with psycopg.connect(server.url(DATABASE), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION vector")
            hba = folder / "pg_hba.conf"
            hba.write_text(f"local all {ROLE} scram-sha-256\n" + hba.read_text())
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute("SELECT pg_reload_conf()")
            socket_dir = psycopg.conninfo.conninfo_to_dict(admin)["host"]
            found = PasswordServer(socket_dir=str(socket_dir), admin_url=admin)
            _wait_for_password_rule(found.url())
            yield found
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def own_password_sources(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No password from the developer's environment, ~/.pgpass or keyring (keyring's ``fail``
    backend until a test installs another); a fresh memory of which servers wanted the keyring's
    password. Autouse: in force in every test module that imports it."""
    for name in ("PGPASSWORD", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
    monkeypatch.setattr(pg, "_KEYRING_FIRST", set())
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    yield
    keyring.set_keyring(previous)


def use_file_keyring(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A real keyring backend kept in a file (tests/agent/file_keyring.py), in this process."""
    import keyring

    from tests.agent.file_keyring import FileKeyring

    monkeypatch.setenv("VAULTCTX_TEST_KEYRING", str(tmp_path / "keyring.json"))
    keyring.set_keyring(FileKeyring())  # type: ignore[no-untyped-call]


def keyring_cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A child's environment with the file keyring, no PG* variables and an empty PGPASSFILE."""
    env = clean_cli_env(
        tmp_path,
        drop=("PG",),
        PYTHON_KEYRING_BACKEND="tests.agent.file_keyring.FileKeyring",
        VAULTCTX_TEST_KEYRING=str(tmp_path / "keyring.json"),
        PGPASSFILE=str(tmp_path / "no-pgpass"),
    )
    return {**env, **extra}


def run_vaultctx(
    env: dict[str, str], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The real CLI in its own process (a generous deadline: a loaded machine)."""
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


class TcpRelay:
    """A TCP port on 127.0.0.1 whose every connection is piped, byte for byte, to a server's
    Unix socket: the private servers listen on no TCP port, and TLS is only ever negotiated
    over TCP (PostgreSQL refuses it on a socket, so through the relay the real server answers
    a TLS request with "not supported")."""

    def __init__(self, socket_path: str) -> None:
        self._socket_path = socket_path
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            server = socket.socket(socket.AF_UNIX)
            server.connect(self._socket_path)
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()

    def close(self) -> None:
        self._listener.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@pytest.fixture
def tcp_relay(password_server: PasswordServer) -> Iterator[TcpRelay]:
    relay = TcpRelay(os.path.join(password_server.socket_dir, ".s.PGSQL.5432"))
    try:
        yield relay
    finally:
        relay.close()
