"""The PostgreSQL password stays secret: never an argument, never in a message, a log line, a
``display()`` or a ``repr``, never written anywhere but the keyring the user chose; a settings
file holding one must be private (index/postgres/connect.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.index import password_postgres
from tests.index.password_postgres import (
    PASSWORD,
    ROLE,
    PasswordServer,
    keyring_cli_env,
    run_vaultctx,
)
from vaultctx.index.postgres import connect as pg
from vaultctx.index.postgres.connect import (
    AuthenticationFailed,
    PostgresError,
    PostgresUrlError,
    connect,
    parse_target,
)

# The fixtures, for the tests below.
password_server = password_postgres.password_server
_own_password_sources = password_postgres.own_password_sources
WRONG = "Wr0ng-but-still-secret-9f8e7d"


def _private_settings(tmp_path: Path) -> Path:
    settings = tmp_path / "vaultctx.toml"
    settings.write_text("")
    settings.chmod(0o600)
    return settings


def test_display_and_repr_never_show_the_password(tmp_path: Path) -> None:
    url = f"postgresql://alice:{WRONG}@db.example.com:5432/notes?sslmode=require"
    target = parse_target(url, from_command_line=False, config_file=_private_settings(tmp_path))
    assert target.password == WRONG
    for shown in (target.display(), repr(target), str(target), target.keyring_username()):
        assert WRONG not in shown
    assert target.display() == "postgresql://alice@db.example.com:5432/notes?sslmode=require"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://alice:{WRONG}@db.example.com/notes",
        f"postgresql://alice@db.example.com/notes?password={WRONG}",
        f"postgresql://alice:{WRONG}@db.example.com/notes?bogus=1",  # refused by libpq's parser
        f"postgresql://alice:{WRONG}@db.example.com:notaport/notes",
        # libpq quotes what it cannot parse: the whole URL, or the broken token.
        f"postgresql://alice:{WRONG}@[db.example.com/notes",
        f"postgresql://alice:{WRONG}%zz@db.example.com/notes",
        f"postgresql://alice@db.example.com/notes?password={WRONG}%zz",
    ],
)
def test_a_refused_url_never_echoes_its_password(url: str, tmp_path: Path) -> None:
    with pytest.raises(PostgresUrlError) as refused:
        parse_target(url, from_command_line=True)
    assert WRONG not in refused.value.one_line()
    result = run_vaultctx(
        keyring_cli_env(tmp_path, HOME=str(tmp_path / "home")), "db", "check", url
    )
    assert result.returncode == 2
    assert WRONG not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_a_settings_file_others_can_read_may_not_hold_one(tmp_path: Path) -> None:
    settings = _private_settings(tmp_path)
    url = f"postgresql://alice:{WRONG}@db.example.com/notes"
    for mode in (0o640, 0o604, 0o660):
        settings.chmod(mode)
        with pytest.raises(PostgresUrlError) as refused:
            parse_target(url, from_command_line=False, config_file=settings)
        assert WRONG not in refused.value.one_line()
    settings.chmod(0o600)
    assert parse_target(url, from_command_line=False, config_file=settings).password == WRONG


def test_a_wrong_password_is_in_no_error_and_no_log(
    password_server: PasswordServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = password_server.url().replace(f"{ROLE}@", f"{ROLE}:{WRONG}@")
    target = parse_target(url, from_command_line=False, config_file=_private_settings(tmp_path))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthenticationFailed) as refused:
        connect(target)
    assert WRONG not in refused.value.one_line()
    assert WRONG not in str(refused.value.__cause__ or "") and refused.value.__suppress_context__
    assert WRONG not in caplog.text


def test_the_scrub_masks_a_password_a_message_might_carry() -> None:
    target = parse_target("postgresql://alice@db.example.com/notes", from_command_line=True)
    error = pg.explain(Exception(f'FATAL:  odd server text "{WRONG}"'), target, WRONG)
    assert isinstance(error, PostgresError) and WRONG not in error.one_line()


def test_the_password_goes_only_to_the_keyring(
    password_server: PasswordServer, tmp_path: Path
) -> None:
    env = keyring_cli_env(tmp_path, HOME=str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    url = password_server.url()
    stored = run_vaultctx(env, "db", "password", "set", url, stdin=PASSWORD + "\n")
    assert stored.returncode == 0, stored.stderr
    keyring_file = tmp_path / "keyring.json"
    assert keyring_file.read_text().count(PASSWORD) == 1
    assert f'"vaultctx-postgres/{password_server.keyring_username()}"' in keyring_file.read_text()
    checked = run_vaultctx(env, "db", "check", url)
    assert checked.returncode == 0, checked.stderr
    # Now a wrong one in the keyring: refused, and the message does not carry it either.
    wrong = run_vaultctx(env, "db", "password", "set", url, stdin=WRONG + "\n")
    assert wrong.returncode == 0
    failed = run_vaultctx(env, "db", "check", url)
    assert failed.returncode == 2 and "refused the password" in failed.stderr
    for result in (stored, checked, wrong, failed):
        assert PASSWORD not in result.stdout + result.stderr
        assert WRONG not in result.stdout + result.stderr
    written = [
        path
        for path in tmp_path.rglob("*")
        if path.is_file() and path != keyring_file and WRONG.encode() in path.read_bytes()
    ]
    assert written == []


def test_password_set_refuses_a_url_with_a_password(tmp_path: Path) -> None:
    url = f"postgresql://alice:{WRONG}@db.example.com/notes"
    result = run_vaultctx(
        keyring_cli_env(tmp_path, HOME=str(tmp_path / "home")),
        "db",
        "password",
        "set",
        url,
        stdin=WRONG + "\n",
    )
    assert result.returncode == 2
    assert WRONG not in result.stdout + result.stderr
    assert not (tmp_path / "keyring.json").exists()
