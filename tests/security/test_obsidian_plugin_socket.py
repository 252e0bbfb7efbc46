"""The engine's socket for the Obsidian plugin (``engine.plugin_socket``): no token exists, so the
guard is the kernel's word on who connects. Another user's connection is closed unread, a runtime
folder open to others is never used (the plugin falls back to a loopback server with a token),
nothing the plugin is given is a secret written anywhere, and a web page's Origin is refused as
on the loopback routes."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.engine.conftest import Indexed, folder, indexed
from tests.obsidian.test_plugin_engine_socket import connect, connected, post, user
from tests.security.test_engine_socket import NOBODY, exchange_as
from vaultctx.engine import plugin_socket
from vaultctx.engine_link import peer
from vaultctx.engine_link import runtime_dir as runtime
from vaultctx.loopback import server_link

__all__ = ["folder", "indexed", "user"]  # fixtures of the engine's and the plugin's tests

Env = tuple[dict[str, str], Any]


@pytest.fixture
def engine(indexed: Indexed, user: Env) -> Iterator[dict[str, Any]]:
    found = connected(indexed, user[0])
    assert "socket" in found, found
    yield found


def test_the_plugin_socket_is_private_and_refuses_web_pages(engine: dict[str, Any]) -> None:
    assert stat.S_IMODE(os.stat(engine["socket"]).st_mode) == 0o600
    assert post(engine, "status")[0] == 200
    assert post(engine, "status", {"Origin": "app://obsidian.md"})[0] == 200
    for origin in ("http://evil.example", "null", "http://localhost", "file://"):
        status, data = post(engine, "status", {"Origin": origin})
        assert status == 403, (origin, data)
    assert post(engine, "status", {"Content-Type": "text/plain"})[0] == 415
    assert post(engine, "status", {"Host": "evil.example"})[0] == 403  # DNS rebinding's Host
    assert post(engine, "status", base="/vaults/0123456789abcdef")[0] == 410  # not opened
    assert post(engine, "status", base="")[0] == 200


def test_no_token_is_given_or_written(
    engine: dict[str, Any], indexed: Indexed, folder: Path, tmp_path: Path
) -> None:
    assert set(engine) == {"socket", "base", "pid", "started"}
    assert server_link.find_server(indexed.db, environ={}) is None  # no loopback server started
    assert post(engine, "search", {"Authorization": "Bearer guess"})[0] == 200  # none checked
    for root in (folder, indexed.vault, tmp_path):
        for path in root.rglob("*"):
            if path.is_file() and not path.is_socket():
                text = path.read_bytes()  # a server record or a client's note would name it
                assert b'"token"' not in text and b"bearer " not in text.lower(), path


@pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user needs root")
def test_another_user_reaching_the_plugin_socket_gets_no_answer(
    engine: dict[str, Any], folder: Path
) -> None:
    folder.chmod(0o711)  # a mistake that lets another user reach the socket
    Path(engine["socket"]).chmod(0o666)
    try:
        as_other = request_as(NOBODY, engine)
        as_me = request_as(None, engine)
    finally:
        folder.chmod(0o700)
    assert as_me.startswith(b"answer:HTTP/1.1 200"), as_me
    assert as_other == b"answer:" or b"reset" in as_other or b"Broken pipe" in as_other, as_other


def request_as(uid: int | None, found: dict[str, Any]) -> bytes:
    """What a forked child of ``uid`` (None: this user) reads back for a status request."""
    head = f"POST {found['base']}/vaultctx/obsidian/status HTTP/1.1\r\n"
    head += "Host: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
    return exchange_as(uid, Path(found["socket"]), head.encode(), size=64)


def test_a_peer_of_another_uid_or_unknown_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert plugin_socket.same_user(left)
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
        assert not plugin_socket.same_user(left)
        monkeypatch.undo()
        monkeypatch.setattr(peer, "method", lambda: None)
        assert not plugin_socket.same_user(left)


def test_a_runtime_folder_open_to_others_is_not_used_for_the_plugin(
    indexed: Indexed, folder: Path, user: Env
) -> None:
    folder.mkdir(mode=0o700)
    folder.chmod(0o755)
    done = connect(indexed, user[0], "--no-start")
    assert "is open to other users (mode 0o755" in done.stderr, done.stderr
    assert "the plugin uses `vaultctx ui`" in done.stderr
    assert '"socket"' not in done.stdout
    assert not (folder / runtime.PLUGIN_SOCKET_NAME).exists()
    assert not (folder / runtime.SOCKET_NAME).exists()
