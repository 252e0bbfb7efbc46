"""A served-vaults file (``serve --http --vaults FILE``) is refused, with the fix, whenever it
could open a vault to the wrong people: a token file someone else could read or have planted, a
name that is not one URL path segment, a vault, index or token served twice, a token or the file
itself inside a served vault (its clients could read it), a weak token beyond loopback, a file
others can change, a token written into the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp.conftest import subprocess_env
from vaultctx.mcp.served_vaults import ServedVaultsError, load_served_vaults

TOKEN_A = "Vq7tMZ2cR1xkPb9sLhW4dN8yFe3Gj0uAo6TiKw5nYrE"
TOKEN_B = "q3Vt0bX9yJc2WmR7kLfA1sZ8nHd4pGe6TuYi5oKwB0M"
ENV = {"TOKEN_A": TOKEN_A, "TOKEN_B": TOKEN_B}


def vault_table(name: str, vault: str, *extra: str, token: str = 'token_env = "TOKEN_A"') -> str:
    lines = ["[[vault]]", f'name = "{name}"', f'vault = "{vault}"', token, *extra]
    return "\n".join(lines) + "\n\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Note.md").write_text("# Note\n", encoding="utf-8")
    token = tmp_path / "b.token"
    token.write_text(TOKEN_B + "\n", encoding="ascii")
    token.chmod(0o600)
    return tmp_path


def load(root: Path, text: str, host: str = "127.0.0.1") -> list[str]:
    file = root / "vaults.toml"
    file.write_text(text, encoding="utf-8")
    file.chmod(0o644)
    return [vault.name for vault in load_served_vaults(file, host=host, env=ENV)]


def refused(root: Path, text: str, host: str = "127.0.0.1") -> ServedVaultsError:
    with pytest.raises(ServedVaultsError) as caught:
        load(root, text, host)
    assert caught.value.suggestion
    return caught.value


def test_a_sound_file_is_accepted(root: Path) -> None:
    text = vault_table("a", "a") + vault_table("b", "b", token='token_file = "b.token"')
    assert load(root, text, host="0.0.0.0") == ["a", "b"]


def test_a_symlinked_token_file_is_refused(root: Path) -> None:
    (root / "link.token").symlink_to(root / "b.token")
    error = refused(root, vault_table("b", "b", token='token_file = "link.token"'))
    assert "symbolic link" in error.message


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_token_file_others_can_read_is_refused_with_the_fix(root: Path, mode: int) -> None:
    (root / "b.token").chmod(mode)
    error = refused(root, vault_table("b", "b", token='token_file = "b.token"'))
    assert f"{mode:04o}" in error.message
    assert f"chmod 600 {root / 'b.token'}" in error.suggestion


@pytest.mark.parametrize(
    "name", ["a/b", "..", ".", "a.b", "", "-a", "a b", "%2e%2e", "é", "a" * 65]
)
def test_a_name_that_is_not_one_url_segment_is_refused(root: Path, name: str) -> None:
    error = refused(root, vault_table(name, "a"))
    assert "URL path" in error.message


def test_the_same_vault_twice_is_refused(root: Path) -> None:
    (root / "again").symlink_to(root / "a", target_is_directory=True)
    text = vault_table("a", "a") + vault_table("b", "again", token='token_env = "TOKEN_B"')
    assert "same vault folder" in refused(root, text).message


def test_the_same_name_twice_is_refused(root: Path) -> None:
    text = vault_table("team", "a") + vault_table("Team", "b", token='token_env = "TOKEN_B"')
    assert "same name" in refused(root, text).message


def test_the_same_index_file_twice_is_refused(root: Path) -> None:
    text = vault_table("a", "a", 'db = "x.db"')
    text += vault_table("b", "b", 'db = "./x.db"', token='token_env = "TOKEN_B"')
    assert "same index file" in refused(root, text).message


def test_one_token_for_two_vaults_is_refused(root: Path) -> None:
    text = vault_table("a", "a") + vault_table("b", "b")
    assert "same token" in refused(root, text).message


def test_a_token_file_inside_a_served_vault_is_refused(root: Path) -> None:
    inside = root / "a" / "token.txt"
    inside.write_text(TOKEN_B, encoding="ascii")
    inside.chmod(0o600)
    text = vault_table("a", "a") + vault_table("b", "b", token='token_file = "a/token.txt"')
    assert "inside the served vault 'a'" in refused(root, text).message


def test_the_vaults_file_inside_a_served_vault_is_refused(root: Path) -> None:
    file = root / "a" / "vaults.toml"
    file.write_text(vault_table("a", "."), encoding="utf-8")
    with pytest.raises(ServedVaultsError, match="inside the served vault"):
        load_served_vaults(file, host="127.0.0.1", env=ENV)


def test_a_vaults_file_others_can_change_is_refused(root: Path) -> None:
    file = root / "vaults.toml"
    file.write_text(vault_table("a", "a"), encoding="utf-8")
    file.chmod(0o664)
    with pytest.raises(ServedVaultsError, match="someone else can change it"):
        load_served_vaults(file, host="127.0.0.1", env=ENV)


def test_a_weak_token_is_refused_beyond_loopback(root: Path) -> None:
    weak = {**ENV, "WEAK": "hunter2hunter2"}
    file = root / "vaults.toml"
    file.write_text(vault_table("a", "a", token='token_env = "WEAK"'), encoding="utf-8")
    assert load_served_vaults(file, host="127.0.0.1", env=weak)  # the user's call on loopback
    with pytest.raises(ServedVaultsError, match="at least 32 random bytes"):
        load_served_vaults(file, host="0.0.0.0", env=weak)


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        (f'token = "{TOKEN_A}"', "unknown key 'token'"),
        ("", "exactly one of token_env and token_file"),
        ('token_env = "TOKEN_A"\ntoken_file = "b.token"', "exactly one of"),
        ('token_env = "UNSET_TOKEN"', "UNSET_TOKEN is not set"),
        ('token_env = "A-B"', "not an environment variable name"),
        ('token_file = "missing.token"', "does not exist"),
    ],
)
def test_a_token_must_come_from_one_private_source(root: Path, token: str, problem: str) -> None:
    assert problem in refused(root, vault_table("a", "a", token=token)).message


def test_a_missing_vault_and_a_bad_scope_are_refused(root: Path) -> None:
    assert "does not exist" in refused(root, vault_table("a", "nowhere")).message
    assert "scope 'admin'" in refused(root, vault_table("a", "a", 'scope = "admin"')).message


def test_serve_refuses_a_hostile_file_before_listening(root: Path) -> None:
    """The command line says what is wrong and exits; no traceback, no server."""
    (root / "b.token").chmod(0o644)
    file = root / "vaults.toml"
    file.write_text(vault_table("b", "b", token='token_file = "b.token"'), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "vaultctx", "serve", "--http", "--vaults", str(file)],
        env={**subprocess_env(), **ENV},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "readable or writable by others" in done.stderr and "chmod 600" in done.stderr
    assert "Traceback" not in done.stderr
    assert os.stat(root / "b.token").st_mode & 0o777 == 0o644  # nothing changed behind the user


def test_a_database_url_is_passed_on_as_given_and_may_be_shared(root: Path) -> None:
    """The vaults of one PostgreSQL database name the same URL; it reaches the store as --db."""
    url = "postgresql://vaultctx@db.internal:5432/notes?sslmode=verify-full"
    text = vault_table("a", "a", f'db = "{url}"')
    text += vault_table("b", "b", f'db = "{url}"', token='token_env = "TOKEN_B"')
    file = root / "vaults.toml"
    file.write_text(text, encoding="utf-8")
    assert [v.db for v in load_served_vaults(file, host="127.0.0.1", env=ENV)] == [url, url]


def test_a_database_url_with_a_password_is_refused(root: Path) -> None:
    text = vault_table("a", "a", 'db = "postgresql://vaultctx:s3cret@db.internal/notes"')
    error = refused(root, text)
    assert "password" in error.message and "s3cret" not in error.message
    assert "PGPASSFILE" in error.suggestion
    query = vault_table("a", "a", 'db = "postgresql://vaultctx@db.internal/notes?password=s3cret"')
    assert "s3cret" not in refused(root, query).message


def test_an_empty_password_is_no_password(root: Path) -> None:
    """``user:@host``, as pgserver writes its URLs, is read as libpq and --db read it."""
    url = "postgresql://vaultctx:@db.internal/notes"
    file = root / "vaults.toml"
    file.write_text(vault_table("a", "a", f'db = "{url}"'), encoding="utf-8")
    assert [v.db for v in load_served_vaults(file, host="127.0.0.1", env=ENV)] == [url]
