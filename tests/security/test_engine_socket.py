"""The engine is reachable by this user alone, and only through its socket.

Its folder is private (0700, this uid, a real folder), or the engine is not used; its socket
is 0600; each connection's peer uid is checked by the engine itself (``SO_PEERCRED``), so even a
socket made reachable by mistake answers nobody else; and it listens on no TCP or UDP port.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path

import pytest

from tests.engine.conftest import engine_answers, engine_pid, folder, vaultctx, wait_for
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime

__all__ = ["folder"]  # the engine tests' fixture, used here too
NOBODY = 65534


def test_a_private_folder_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(tmp_path / "rt"))
    made = runtime.runtime_dir()
    assert made == tmp_path / "rt"
    assert made.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701, 0o777])
def test_a_folder_open_to_others_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    folder = tmp_path / "rt"
    folder.mkdir()
    folder.chmod(mode)
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(folder))
    with pytest.raises(runtime.RuntimeDirError, match="open to other users"):
        runtime.runtime_dir()


def test_a_link_or_a_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "file").write_text("")
    for name in ("link", "file"):
        monkeypatch.setenv(runtime.RUNTIME_ENV, str(tmp_path / name))
        with pytest.raises(runtime.RuntimeDirError, match="is not a folder"):
            runtime.runtime_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user needs root")
def test_a_folder_of_another_user_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "rt"
    folder.mkdir(mode=0o700)
    os.chown(folder, NOBODY, NOBODY)
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(folder))
    with pytest.raises(runtime.RuntimeDirError, match="belongs to another user"):
        runtime.runtime_dir()


def start_engine() -> int:
    assert vaultctx(["engine", "start"]).returncode == 0
    wait_for(engine_answers, "the engine answers")
    return engine_pid()


def test_the_socket_is_private(folder: Path) -> None:
    start_engine()
    assert folder.stat().st_mode & 0o777 == 0o700
    assert client.socket_path().stat().st_mode & 0o777 == 0o600


def test_the_engine_listens_on_no_network_port(folder: Path) -> None:
    pid = start_engine()
    inodes = set()
    for descriptor in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(descriptor)
        if target.startswith("socket:["):
            inodes.add(target.removeprefix("socket:[").rstrip("]"))
    assert inodes, "the engine has its Unix socket at least"
    network = set()
    for table in ("tcp", "tcp6", "udp", "udp6"):
        rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        network |= {row.split()[9] for row in rows if len(row.split()) > 9}
    assert inodes.isdisjoint(network)


def ask_status_as(uid: int | None, socket_path: Path) -> bytes:
    """The first line the engine answers a status request made by a process of ``uid`` (a
    forked child that drops to it; None: this user), or what the child failed with."""
    line = json.dumps({"op": "status", "version": client.VERSION}).encode()
    return exchange_as(uid, socket_path, line + b"\n")


def exchange_as(uid: int | None, socket_path: Path, sent: bytes, size: int = 0) -> bytes:
    """``answer:`` and what a forked child of ``uid`` (None: this user) reads back after
    sending ``sent`` to ``socket_path``: a line, or up to ``size`` bytes; or what it failed with."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            with socket.socket(socket.AF_UNIX) as connection:
                connection.settimeout(60)  # a loaded machine
                connection.connect(str(socket_path))
                connection.sendall(sent)
                got = connection.recv(size) if size else connection.makefile("rb").readline()
                os.write(write, b"answer:" + got)
        except BaseException as exc:
            os.write(write, f"failed: {exc!r}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        got = answer.read()
    os.waitpid(child, 0)
    return got


@pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user needs root")
def test_another_user_reaching_the_socket_gets_no_answer(folder: Path) -> None:
    start_engine()
    socket_path = client.socket_path()
    folder.chmod(0o711)  # a mistake that lets another user reach the socket
    socket_path.chmod(0o666)
    try:
        as_other = ask_status_as(NOBODY, socket_path)
        as_me = ask_status_as(None, socket_path)
    finally:
        folder.chmod(0o700)
    assert as_me.startswith(b"answer:{"), as_me
    # closed unread: the child sees the end of the stream, or a broken pipe if it was still
    # sending; either way not a byte of an answer
    assert as_other == b"answer:" or b"Broken pipe" in as_other or b"reset" in as_other, as_other


@pytest.mark.skipif(os.geteuid() != 0, reason="listening as another user needs root")
def test_a_socket_served_by_another_user_is_refused(folder: Path) -> None:
    """Bound in our folder, but listening (and so answering) as another uid: not our engine."""
    path = client.socket_path()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            listener.listen()  # the peer credentials are the listener's at listen()
            while True:
                connection, _ = listener.accept()
                with connection, contextlib.suppress(OSError):
                    connection.sendall(json.dumps({"version": client.VERSION}).encode() + b"\n")
        finally:
            os._exit(0)
    listener.close()
    try:
        wait_for(lambda: _listening(path), "the other user's listener")
        with pytest.raises(client.EngineForeignError, match=f"another user \\(uid {NOBODY}\\)"):
            client.request({"op": "status"})
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)


def _listening(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True
