"""The engine serves only peers whose uid the kernel vouches for: Linux's ``SO_PEERCRED``,
macOS's and the BSDs' ``LOCAL_PEERCRED`` (a ``struct xucred``, parsed here from crafted bytes,
as this machine has no such socket option), and on a system with neither it does not serve."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

import pytest

from vaultctx.engine import server
from vaultctx.engine_link import peer
from vaultctx.engine_link import runtime_dir as runtime


def xucred(version: int, uid: int, groups: tuple[int, ...] = (20, 12)) -> bytes:
    """A ``struct xucred`` as the macOS kernel fills it (16 group slots, zero padded)."""
    slots = (*groups, *([0] * (peer.XU_NGROUPS - len(groups))))
    return struct.pack(f"=IIh2x{peer.XU_NGROUPS}I", version, uid, len(groups), *slots)


def test_the_uid_of_a_struct_xucred() -> None:
    assert peer.xucred_uid(xucred(0, 501)) == 501
    assert peer.xucred_uid(xucred(0, 0)) == 0
    assert peer.xucred_uid(xucred(0, 4294967294)) == 4294967294  # macOS's nobody (uid_t -2)
    assert peer.xucred_uid(xucred(0, 501) + bytes(8)) == 501  # FreeBSD's trailing cr_pid
    assert len(xucred(0, 501)) <= peer.XUCRED_SIZE


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"", "0 bytes, too short"),
        (struct.pack("=I", 0), "4 bytes, too short"),
        (xucred(1, 501), "version 1"),
        (xucred(0xFFFFFFFF, 501), "version 4294967295"),
    ],
)
def test_a_malformed_struct_xucred_is_refused(raw: bytes, problem: str) -> None:
    with pytest.raises(peer.PeerCheckError, match=problem):
        peer.xucred_uid(raw)


def test_this_linux_checks_with_so_peercred() -> None:
    assert peer.method() == "SO_PEERCRED"
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer.peer_uid(left) == peer.peer_uid(right)


@pytest.mark.parametrize(("platform", "expected"), [("darwin", "LOCAL_PEERCRED"), ("win32", None)])
def test_the_method_follows_the_platform(
    monkeypatch: pytest.MonkeyPatch, platform: str, expected: str | None
) -> None:
    monkeypatch.setattr(peer.sys, "platform", platform)
    assert peer.method() == expected


def test_without_a_peer_check_no_connection_is_vouched_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(peer, "method", lambda: None)
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right, pytest.raises(peer.PeerCheckError, match="cannot tell who is at the other"):
        peer.peer_uid(left)
    assert not runtime.supported()


def test_without_a_peer_check_the_engine_does_not_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(peer, "method", lambda: None)
    monkeypatch.setenv(runtime.RUNTIME_ENV, str(tmp_path / "rt"))
    assert server.main([]) == 2
    assert not (tmp_path / "rt").exists()  # not even its folder made
