"""index/postgres/connect.py against real PostgreSQL servers: URLs parsed as libpq parses them,
passwords found where the user keeps them (PGPASSFILE first, then the keyring), and every
failure a user can hit reported with its fix, from the CLI too, never as a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from tests.clean_env import clean_cli_env
from tests.index import password_postgres
from tests.index.password_postgres import (
    DATABASE,
    PASSWORD,
    REPO,
    ROLE,
    PasswordServer,
    TcpRelay,
    keyring_cli_env,
    run_vaultctx,
    use_file_keyring,
)
from vaultctx.index.postgres import connect as pg
from vaultctx.index.postgres.connect import (
    AuthenticationFailed,
    DatabaseMissing,
    PgvectorMissing,
    PostgresTarget,
    PostgresUrlError,
    ServerUnreachable,
    TlsFailed,
    connect,
    connect_params,
    parse_target,
    server_facts,
)

# The fixtures, for the tests below.
password_server = password_postgres.password_server
tcp_relay = password_postgres.tcp_relay
_own_password_sources = password_postgres.own_password_sources


# Parsing


def test_a_url_is_parsed_as_libpq_parses_it() -> None:
    target = parse_target(
        "postgres://alice@db.example.com:6543/team%20notes?sslmode=verify-full"
        "&sslrootcert=/etc/ca.pem&sslcert=/home/a/c.crt&sslkey=/home/a/c.key",
        from_command_line=True,
    )
    assert (target.host, target.port, target.user, target.dbname) == (
        "db.example.com",
        "6543",
        "alice",
        "team notes",
    )
    assert dict(target.options) == {
        "sslmode": "verify-full",
        "sslrootcert": "/etc/ca.pem",
        "sslcert": "/home/a/c.crt",
        "sslkey": "/home/a/c.key",
    }
    assert target.keyring_username() == "alice@db.example.com:6543/team notes"
    params = connect_params(target)
    assert params["sslmode"] == "verify-full" and params["sslkey"] == "/home/a/c.key"
    assert params["connect_timeout"] == "10" and params["application_name"] == "vaultctx"
    assert "password" not in params
    again = parse_target(target.display(), from_command_line=True)
    assert again == target


def test_the_url_may_choose_its_own_timeout_and_a_socket_folder() -> None:
    target = parse_target(
        "postgresql://bob@/notes?host=/run/postgresql&connect_timeout=3", from_command_line=True
    )
    assert target.host == "/run/postgresql" and target.is_local()
    assert connect_params(target)["connect_timeout"] == "3"
    assert target.display() == "postgresql://bob@/notes?host=/run/postgresql&connect_timeout=3"


@pytest.mark.parametrize(
    "url",
    ["sqlite:///tmp/x.db", "/home/me/index.db", "host=db dbname=x", "postgresql://h/db?nonsense=1"],
)
def test_anything_but_a_postgres_url_is_refused(url: str) -> None:
    with pytest.raises(PostgresUrlError) as refused:
        parse_target(url, from_command_line=True)
    assert "postgresql://USER@HOST:5432/DATABASE" in refused.value.suggestion


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://alice:s3cr3t-pw@db.example.com/notes",
        "postgresql://alice@db/notes?password=s3cr3t-pw",
    ],
)
def test_a_password_on_the_command_line_is_refused_with_the_fix(url: str) -> None:
    with pytest.raises(PostgresUrlError) as refused:
        parse_target(url, from_command_line=True)
    assert "command line" in refused.value.message
    assert "vaultctx db password set postgresql://alice@" in refused.value.suggestion
    assert "PGPASSFILE" in refused.value.suggestion
    assert "s3cr3t-pw" not in refused.value.one_line()


def test_a_password_in_the_settings_file_only_while_the_file_is_private(tmp_path: Path) -> None:
    settings = tmp_path / "vaultctx.toml"
    settings.write_text('db = "postgresql://alice:s3cr3t-pw@db.example.com/notes"\n')
    url = "postgresql://alice:s3cr3t-pw@db.example.com/notes"
    settings.chmod(0o644)
    with pytest.raises(PostgresUrlError) as refused:
        parse_target(url, from_command_line=False, config_file=settings)
    assert f"chmod 600 {settings}" in refused.value.suggestion
    assert "s3cr3t-pw" not in refused.value.one_line()
    settings.chmod(0o600)
    target = parse_target(url, from_command_line=False, config_file=settings)
    assert target.password == "s3cr3t-pw"
    assert connect_params(target, target.password)["password"] == "s3cr3t-pw"
    with pytest.raises(PostgresUrlError):  # a URL from nowhere named is treated as exposed
        parse_target(url, from_command_line=False)


def test_sslmode_disable_towards_another_machine_is_warned_about_once() -> None:
    remote = parse_target("postgresql://a@db.example.com/x?sslmode=disable", from_command_line=True)
    assert remote.tls_warning() is not None and "not encrypted" in str(remote.tls_warning())
    for local in ("postgresql://a@localhost/x", "postgresql://a@/x?host=/run/pg"):
        assert (
            parse_target(
                local + ("&" if "?" in local else "?") + "sslmode=disable", from_command_line=True
            ).tls_warning()
            is None
        )
    assert (
        parse_target("postgresql://a@db.example.com/x", from_command_line=True).tls_warning()
        is None
    )


def test_the_warning_is_printed_by_the_cli(tmp_path: Path) -> None:
    # This machine's own name: not loopback by its spelling, so the warning is due, yet it
    # resolves here (the hosts file) and nothing listens on port 1: nothing leaves the machine.
    env = clean_cli_env(tmp_path)
    url = f"postgresql://a@{socket.gethostname()}:1/x?sslmode=disable"
    result = run_vaultctx(env, "db", "check", url)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("warning: sslmode=disable") and len(lines) == 2
    assert f"cannot reach PostgreSQL at {socket.gethostname()}:1" in lines[1]


def test_a_tunnel_to_this_machine_is_not_warned_about() -> None:
    tunnel = "postgresql://a@db.example.com:6543/x?hostaddr=127.0.0.1&sslmode=disable"
    assert parse_target(tunnel, from_command_line=True).tls_warning() is None


def test_a_port_that_is_no_number_is_a_url_error() -> None:
    for url in ("postgresql://a@db:notaport/x", "postgresql://a@db:70000/x"):
        with pytest.raises(PostgresUrlError, match="is not a port number"):
            parse_target(url, from_command_line=True)


# Connecting to the shared test server (trust over its Unix socket)


def test_connect_reports_the_server_and_pgvector(postgres_url: str) -> None:
    target = parse_target(postgres_url, from_command_line=True)
    with connect(target) as conn:
        facts = server_facts(conn)  # connect() hands over an idle connection; so does this
        assert conn.info.transaction_status.name == "IDLE"
        name = conn.execute("SELECT current_setting('application_name')").fetchone()
        server_facts(conn)  # inside the caller's transaction: left open for the caller
        assert conn.info.transaction_status.name == "INTRANS"
    assert name == ("vaultctx",)
    assert facts.server_version.startswith("18")
    assert facts.pgvector_version is not None
    assert tuple(int(p) for p in facts.pgvector_version.split(".")[:2]) >= (0, 7)
    assert facts.tls is False and facts.tls_version is None
    assert (
        facts.summary()
        == f"PostgreSQL {facts.server_version}, pgvector {facts.pgvector_version}, no TLS"
    )


def test_a_missing_database_names_createdb(postgres_url: str) -> None:
    target = parse_target(postgres_url, from_command_line=True)
    gone = PostgresTarget(target.host, target.port, target.user, "no_such_db", target.options)
    with pytest.raises(DatabaseMissing) as missing:
        connect(gone)
    assert "has no database 'no_such_db'" in missing.value.message
    assert f"createdb -h {target.host} -O postgres no_such_db" in missing.value.suggestion


def test_wrong_port_is_unreachable_naming_host_and_port() -> None:
    target = parse_target("postgresql://a@127.0.0.1:1/x", from_command_line=True)
    with pytest.raises(ServerUnreachable) as unreachable:
        connect(target)
    assert "127.0.0.1:1" in unreachable.value.message
    assert "is PostgreSQL running" in unreachable.value.suggestion


def test_pgvector_missing_and_not_ours_to_add_says_the_exact_sql(postgres_url: str) -> None:
    target = parse_target(postgres_url, from_command_line=True)
    plain = f"plain_{target.dbname}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        assert (
            admin.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None
        )
        admin.execute(f"CREATE ROLE {plain} LOGIN")
        try:
            as_plain = PostgresTarget(
                target.host, target.port, plain, target.dbname, target.options
            )
            with pytest.raises(PgvectorMissing) as missing:
                connect(as_plain)
            assert "only a superuser may add it" in missing.value.message
            assert "CREATE EXTENSION vector;" in missing.value.suggestion
            assert f"-d {target.dbname}" in missing.value.suggestion
            with connect(as_plain, check_vector=False) as conn:  # the store may look without it
                assert server_facts(conn).pgvector_version is None
        finally:
            admin.execute(f"DROP ROLE {plain}")


# Passwords: the server that asks for one


def test_no_password_anywhere_says_where_to_put_one(password_server: PasswordServer) -> None:
    target = parse_target(password_server.url(), from_command_line=True)
    with pytest.raises(AuthenticationFailed) as refused:
        connect(target)
    assert f"the password of user '{ROLE}' and none was found" in refused.value.message
    assert "vaultctx db password set" in refused.value.suggestion
    assert "PGPASSFILE" in refused.value.suggestion


def test_a_wrong_password_names_the_user(password_server: PasswordServer, tmp_path: Path) -> None:
    settings = tmp_path / "vaultctx.toml"
    settings.write_text("")
    settings.chmod(0o600)
    url = password_server.url().replace(f"{ROLE}@", f"{ROLE}:not-the-password@")
    target = parse_target(url, from_command_line=False, config_file=settings)
    with pytest.raises(AuthenticationFailed) as refused:
        connect(target)
    assert f"refused the password of user '{ROLE}'" in refused.value.message
    assert "not-the-password" not in refused.value.one_line()


def _pgpass(tmp_path: Path, server: PasswordServer, password: str) -> Path:
    path = tmp_path / "pgpass"
    path.write_text(f"{server.socket_dir}:5432:{DATABASE}:{ROLE}:{password}\n")
    path.chmod(0o600)
    return path


def test_pgpassfile_is_used(
    password_server: PasswordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSFILE", str(_pgpass(tmp_path, password_server, PASSWORD)))
    with connect(parse_target(password_server.url(), from_command_line=True)) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (ROLE,)


def test_the_keyring_is_used(
    password_server: PasswordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_file_keyring(monkeypatch, tmp_path)
    target = parse_target(password_server.url(), from_command_line=True)
    assert target.keyring_username() == password_server.keyring_username()
    pg.store_password(target, PASSWORD)
    for _ in range(2):  # the second straight from the keyring, without asking the server first
        with connect(target) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (ROLE,)
    assert target.keyring_username() in pg._KEYRING_FIRST
    assert pg.forget_password(target) and not pg.forget_password(target)


def test_pgpassfile_wins_over_the_keyring(
    password_server: PasswordServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stale keyring entry must not shadow the PGPASSFILE libpq reads: we send no password of
    # our own unless the server asked for one libpq found nowhere.
    use_file_keyring(monkeypatch, tmp_path)
    target = parse_target(password_server.url(), from_command_line=True)
    pg.store_password(target, "a-stale-password")
    monkeypatch.setenv("PGPASSFILE", str(_pgpass(tmp_path, password_server, PASSWORD)))
    with connect(target) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (ROLE,)


def test_password_set_then_check_through_the_cli(
    password_server: PasswordServer, tmp_path: Path
) -> None:
    env = keyring_cli_env(tmp_path)
    url = password_server.url()
    refused = run_vaultctx(env, "db", "check", url)
    assert refused.returncode == 2 and "none was found" in refused.stderr
    stored = run_vaultctx(env, "db", "password", "set", url, stdin=PASSWORD + "\n")
    assert stored.returncode == 0, stored.stderr
    assert f"stored the password for {password_server.keyring_username()}" in stored.stdout
    checked = run_vaultctx(env, "db", "check", url)
    assert checked.returncode == 0, checked.stderr
    assert (
        checked.stdout.startswith(f"{url.split('?')[0]}?host=") and "pgvector 0.8" in checked.stdout
    )
    for result in (refused, stored, checked):
        assert "Traceback" not in result.stderr


def test_the_cli_reports_each_failure_without_a_traceback(
    postgres_url: str, tmp_path: Path
) -> None:
    env = clean_cli_env(
        tmp_path, drop=("PG",), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring"
    )
    missing_db = postgres_url.replace(
        parse_target(postgres_url, from_command_line=True).dbname, "no_such_db"
    )
    cases = {
        "postgresql://a@127.0.0.1:1/x": "is PostgreSQL running",
        missing_db: "createdb",
        "postgresql://a:pw@127.0.0.1:1/x": "vaultctx db password set",
        "not-a-url": "postgresql://",
    }
    for url, fix in cases.items():
        result = run_vaultctx(env, "db", "check", url)
        assert result.returncode == 2, result
        assert result.stderr.startswith("error: ") and fix in result.stderr
        assert "Traceback" not in result.stderr


def test_without_psycopg_the_fix_is_the_extra(tmp_path: Path) -> None:
    # psycopg made unimportable in the child (None in sys.modules is how Python spells it).
    script = (
        "import sys; sys.modules['psycopg'] = None; "
        "sys.argv = ['vaultctx', 'db', 'check', 'postgresql://a@127.0.0.1:1/x']; "
        "from vaultctx.cli.main import run; run()"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=clean_cli_env(tmp_path),
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 2, result
    assert "pip install 'vaultctx[postgres]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_sqlite_users_never_import_psycopg() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, vaultctx.api, vaultctx.index.postgres.connect; "
            "print('psycopg' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        env={**os.environ},
        cwd=REPO,
        timeout=120,
    )
    assert result.stdout.strip() == "False", result.stderr


# TLS, over TCP (through a relay to the real server, which offers no TLS)


def test_tls_settings_reach_libpq_unchanged(
    password_server: PasswordServer,
    tcp_relay: TcpRelay,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_file_keyring(monkeypatch, tmp_path)
    base = f"postgresql://{ROLE}@127.0.0.1:{tcp_relay.port}/{DATABASE}"
    pg.store_password(parse_target(base, from_command_line=True), PASSWORD)
    with connect(parse_target(base + "?sslmode=disable", from_command_line=True)) as conn:
        facts = server_facts(conn)
    assert facts.tls is False and facts.summary().endswith("no TLS")
    with pytest.raises(TlsFailed) as refused:
        connect(parse_target(base + "?sslmode=require", from_command_line=True))
    assert "127.0.0.1" in refused.value.message and "sslmode" in refused.value.suggestion
    missing_ca = tmp_path / "no-such-ca.pem"
    with pytest.raises(TlsFailed):
        connect(
            parse_target(
                f"{base}?sslmode=verify-full&sslrootcert={missing_ca}", from_command_line=True
            )
        )


def test_an_old_pgvector_is_refused_with_the_upgrade(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg, "MIN_PGVECTOR", (99, 0))  # the bundled 0.8.5 then counts as old
    with pytest.raises(PgvectorMissing) as old:
        connect(parse_target(postgres_url, from_command_line=True))
    assert "has pgvector 0.8.5; vaultctx needs 99.0 or newer" in old.value.message
    assert "ALTER EXTENSION vector UPDATE;" in old.value.suggestion


def test_processes_adding_pgvector_at_once_all_connect(postgres_url: str) -> None:
    # Several indexers started together on a fresh database race to add the extension; the
    # loser of that race must find the winner's, not fail.
    from concurrent.futures import ThreadPoolExecutor

    target = parse_target(postgres_url, from_command_line=True)

    def one(_: int) -> str:
        with connect(target) as conn:
            return str(server_facts(conn).pgvector_version)

    with ThreadPoolExecutor(max_workers=6) as pool:
        versions = list(pool.map(one, range(6)))
    assert len(set(versions)) == 1 and versions[0].startswith("0.")


def test_without_a_keyring_the_password_file_is_the_fix() -> None:
    target = parse_target("postgresql://alice@db.example.com/notes", from_command_line=True)
    with pytest.raises(pg.PostgresError) as refused:
        pg.store_password(target, "s3cr3t-pw")
    assert refused.value.message == "this system has no keyring to store the password in"
    assert "PGPASSFILE" in refused.value.suggestion
    assert pg.stored_password(target) is None and not pg.forget_password(target)


def test_password_delete_through_the_cli(tmp_path: Path) -> None:
    env = keyring_cli_env(tmp_path)
    url = "postgresql://alice@db.example.com:5433/notes"
    assert run_vaultctx(env, "db", "password", "set", url, stdin="pw-1\n").returncode == 0
    deleted = run_vaultctx(env, "db", "password", "delete", url + "?sslmode=require")
    assert deleted.returncode == 0
    assert deleted.stdout.strip() == "deleted the password for alice@db.example.com:5433/notes"
    again = run_vaultctx(env, "db", "password", "delete", url)
    assert "no password for alice@db.example.com:5433/notes in the keyring" in again.stderr
