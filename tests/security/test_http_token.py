"""``serve --http`` requires a bearer token by default, and only a strong one beyond loopback.

Without ``--token`` the server generates one (``secrets.token_urlsafe(32)``) into the user config
dir, mode 0600, and keeps using it across restarts; a token file that someone else could have
planted or read is refused. ``--no-token`` is an explicit, warned opt-out for loopback only.
"""

from __future__ import annotations

import os
import secrets
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from tests.mcp.conftest import HttpServer, free_port, stop, wait_until_listening
from tests.security.serving import STRONG_TOKEN, serve_env, start, tiny_vault
from vaultctx.loopback import server_link
from vaultctx.loopback.policy import InsecureBindError, check_bind
from vaultctx.loopback.token import (
    TOKEN_FILE_NAME,
    TokenFileError,
    load_or_create_token,
    read_token_file,
    strength_problem,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


# The token file.


def test_the_token_is_generated_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "config" / "vaultctx" / TOKEN_FILE_NAME
    first = load_or_create_token(path)
    assert first.created and first.path == path
    assert strength_problem(first.token) is None and len(first.token) >= 43
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = load_or_create_token(path)
    assert again.token == first.token and not again.created


@pytest.mark.parametrize("target_exists", [True, False])
def test_a_planted_link_is_refused_not_followed(tmp_path: Path, target_exists: bool) -> None:
    chosen = tmp_path / "chosen-by-someone-else"
    if target_exists:
        chosen.write_text(STRONG_TOKEN)
        chosen.chmod(0o600)
    path = tmp_path / TOKEN_FILE_NAME
    path.symlink_to(chosen)
    with pytest.raises(TokenFileError, match="symbolic link"):
        load_or_create_token(path)
    assert chosen.exists() == target_exists  # nothing was written through the link
    assert path.is_symlink()


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602])
def test_a_token_file_others_can_read_or_write_is_refused(tmp_path: Path, mode: int) -> None:
    path = load_or_create_token(tmp_path / TOKEN_FILE_NAME).path
    path.chmod(mode)
    with pytest.raises(TokenFileError, match="readable or writable by others"):
        load_or_create_token(path)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown (root)")
def test_a_token_file_of_another_user_is_refused(tmp_path: Path) -> None:
    path = load_or_create_token(tmp_path / TOKEN_FILE_NAME).path
    os.chown(path, 65534, 65534)
    with pytest.raises(TokenFileError, match="belongs to user id 65534"):
        read_token_file(path)


@pytest.mark.parametrize("content", ["", "\n", "two words\n", "caf\u00e9-token"])
def test_a_token_file_without_a_usable_token_is_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / TOKEN_FILE_NAME
    path.write_text(content, encoding="utf-8")
    path.chmod(0o600)
    with pytest.raises(TokenFileError, match="not usable") as raised:
        read_token_file(path)
    assert "delete the file" in raised.value.suggestion


# How strong a token must be.


# Fresh random tokens on every run, named by their shape (the same test ids in every process,
# which parallel test workers need).
WEAK = {
    "x": lambda: "x",
    "urlsafe-42-chars": lambda: secrets.token_urlsafe(32)[:42],
    "hex-63-chars": lambda: secrets.token_hex(32)[:63],
    "one-letter-64": lambda: "a" * 64,
    "repeated-abc": lambda: "abcabcabc" * 8,
}
STRONG = {
    "urlsafe-32-bytes": lambda: secrets.token_urlsafe(32),
    "hex-32-bytes": lambda: secrets.token_hex(32),
    "urlsafe-48-bytes": lambda: secrets.token_urlsafe(48),
}


@pytest.mark.parametrize("shape", sorted(WEAK))
def test_weak_tokens(shape: str) -> None:
    token = WEAK[shape]()
    assert strength_problem(token) is not None


@pytest.mark.parametrize("shape", sorted(STRONG))
def test_strong_tokens(shape: str) -> None:
    token = STRONG[shape]()
    assert strength_problem(token) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "my-desktop.lan"])
def test_beyond_loopback_a_token_needs_32_random_bytes(host: str) -> None:
    for weak in (None, "", "x", "correct-horse-battery-staple"):
        with pytest.raises(InsecureBindError):
            check_bind(host, weak)
    check_bind(host, STRONG_TOKEN)


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_on_loopback_any_token_or_none_is_the_users_call(host: str) -> None:
    for token in (None, "x", STRONG_TOKEN):
        check_bind(host, token)


# The real server.


def initialize(server: HttpServer, token: str | None) -> int:
    auth = {"authorization": f"Bearer {token}"} if token else {}
    answer = httpx2.post(server.url, json=INITIALIZE, headers={**MCP_HEADERS, **auth}, timeout=60)
    return answer.status_code


def ask_hook_endpoint(server: HttpServer, token: str | None) -> int:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    url = f"http://127.0.0.1:{server.port}{server_link.HOOK_CONTEXT_PATH}"
    return httpx2.post(url, json={"text": "x"}, headers=headers, timeout=60).status_code


def serving(start_server: Callable[[], HttpServer]) -> HttpServer:
    server = start_server()
    try:
        wait_until_listening(server)
    except BaseException:
        stop(server)
        raise
    return server


def test_with_no_token_given_the_generated_one_is_required(tmp_path: Path) -> None:
    vault, db = tiny_vault(tmp_path)
    env = serve_env(tmp_path / "config")
    token_file = tmp_path / "config" / "vaultctx" / TOKEN_FILE_NAME
    server = serving(lambda: start(vault, db, env))
    try:
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text(encoding="ascii").strip()
        assert initialize(server, None) == 401
        assert initialize(server, "wrong") == 401
        assert ask_hook_endpoint(server, None) == 401
        assert initialize(server, token) == 200
        found = server_link.find_server(db, {})  # what the hooks use to reach the server
        assert found is not None and found.token == token
    finally:
        stop(server)
    again = serving(lambda: start(vault, db, env))  # a restart keeps the token clients have
    try:
        assert token_file.read_text(encoding="ascii").strip() == token
        assert initialize(again, token) == 200
        assert initialize(again, None) == 401
    finally:
        stop(again)
    stderr = (again.process.stderr.read() if again.process.stderr else b"").decode()
    assert str(token_file) in stderr and token not in stderr


def test_no_token_is_an_explicit_opt_out_with_a_warning(tmp_path: Path) -> None:
    vault, db = tiny_vault(tmp_path)
    env = serve_env(tmp_path / "config")
    server = serving(lambda: start(vault, db, env, "--no-token"))
    try:
        assert initialize(server, None) == 200
    finally:
        stop(server)
    stderr = (server.process.stderr.read() if server.process.stderr else b"").decode()
    assert "warning: --no-token" in stderr and "can read your notes" in stderr
    assert not (tmp_path / "config" / "vaultctx" / TOKEN_FILE_NAME).exists()


def near_misses(token: str) -> dict[str, str]:
    """Tokens a comparison by prefix, or one that ignores the last or an extra character, or
    the case, would let through."""
    return {
        "a prefix": token[:8],
        "less its last character": token[:-1],
        "plus one character": token + "x",
        "twice": token + token,
        "another case": token.swapcase(),
        "another last character": token[:-1] + ("A" if token[-1] != "A" else "B"),
    }


def test_only_the_exact_token_opens_the_server_and_its_hook_endpoint(tmp_path: Path) -> None:
    vault, db = tiny_vault(tmp_path)
    server = serving(
        lambda: start(vault, db, serve_env(tmp_path / "config"), "--token", STRONG_TOKEN)
    )
    try:
        for name, given in near_misses(STRONG_TOKEN).items():
            assert initialize(server, given) == 401, name
            assert ask_hook_endpoint(server, given) == 401, name
        assert initialize(server, STRONG_TOKEN) == 200
        assert ask_hook_endpoint(server, STRONG_TOKEN) != 401
    finally:
        stop(server)


def refused_start(
    tmp_path: Path, args: list[str], **env_extra: str
) -> subprocess.CompletedProcess[str]:
    vault, db = tiny_vault(tmp_path)
    command = ["serve", "--vault", str(vault), "--db", str(db), "--http"]
    return subprocess.run(
        [sys.executable, "-m", "vaultctx", *command, "--port", str(free_port()), *args],
        capture_output=True,
        text=True,
        env=serve_env(tmp_path / "config", **env_extra),
        timeout=60,
    )


def test_no_token_is_refused_beyond_loopback(tmp_path: Path) -> None:
    done = refused_start(tmp_path, ["--host", "0.0.0.0", "--no-token"])
    assert done.returncode == 2
    assert "needs a bearer token" in done.stderr and "--no-token" in done.stderr


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--token", "x"], {}), ([], {"VAULTCTX_TOKEN": "x"})],
    ids=["option", "environment"],
)
def test_a_one_character_token_is_refused_for_a_wildcard_bind(
    tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    done = refused_start(tmp_path, ["--host", "0.0.0.0", *args], **env)
    assert done.returncode == 2
    assert "at least 32 random bytes" in done.stderr and "openssl rand -hex 32" in done.stderr


def make_world_readable(path: Path) -> None:
    path.chmod(0o644)


def replace_with_link(path: Path) -> None:
    planted = path.with_name("planted")
    planted.write_text(STRONG_TOKEN)
    planted.chmod(0o600)
    path.unlink()
    path.symlink_to(planted)


@pytest.mark.parametrize("tamper", [make_world_readable, replace_with_link])
def test_a_tampered_token_file_stops_the_server(
    tmp_path: Path, tamper: Callable[[Path], None]
) -> None:
    token_file = load_or_create_token(tmp_path / "config" / "vaultctx" / TOKEN_FILE_NAME).path
    tamper(token_file)
    done = refused_start(tmp_path, [])
    assert done.returncode == 2
    assert f"refusing the bearer token file {token_file}" in done.stderr
