"""Who is at the other end of a Unix socket, as the kernel vouches for it.

Linux answers ``SO_PEERCRED`` (pid, uid, gid); macOS and the BSDs answer ``LOCAL_PEERCRED``
with a ``struct xucred`` (a version, the uid, the groups), which is what their
``getpeereid(3)`` reads too. A system with neither has no way to tell who connected: the engine
does not run there at all, rather than serve a socket it cannot check.
"""

from __future__ import annotations

import socket
import struct
import sys

from vaultctx.errors import VaultctxError

# <sys/un.h> and <sys/ucred.h> on macOS and the BSDs (the values are the same on each).
SOL_LOCAL = 0
LOCAL_PEERCRED = 0x001
XUCRED_VERSION = 0
XU_NGROUPS = 16
# u_int cr_version; uid_t cr_uid; short cr_ngroups; (2 bytes padding) gid_t cr_groups[16];
# FreeBSD appends a pointer-sized union (cr_pid): asking for more than macOS has is harmless.
XUCRED_SIZE = 4 + 4 + 2 + 2 + 4 * XU_NGROUPS + 8
_HEAD = struct.Struct("=II")  # cr_version, cr_uid: all the check reads


class PeerCheckError(VaultctxError):
    """The peer's uid could not be learnt: the connection is refused."""


def method() -> str | None:
    """The peer check this system has: ``"SO_PEERCRED"``, ``"LOCAL_PEERCRED"``, or None."""
    if sys.platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
        return "SO_PEERCRED"
    if sys.platform == "darwin" or "bsd" in sys.platform:
        return "LOCAL_PEERCRED"
    return None


def peer_uid(connection: socket.socket) -> int:
    """The uid of the process at the other end; ``PeerCheckError`` when it cannot be known."""
    how = method()
    try:
        if how == "SO_PEERCRED":
            size = struct.calcsize("3i")
            raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size)
            return int(struct.unpack("3i", raw)[1])
        if how == "LOCAL_PEERCRED":
            return xucred_uid(connection.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, XUCRED_SIZE))
    except OSError as exc:
        raise PeerCheckError(
            f"the peer of the engine socket could not be checked ({exc.strerror})",
            "the connection is refused; commands run in-process",
        ) from exc
    raise PeerCheckError(
        f"this system ({sys.platform}) cannot tell who is at the other end of a Unix socket",
        "the engine is not used here; commands run in-process",
    )


def xucred_uid(raw: bytes) -> int:
    """``cr_uid`` of a ``struct xucred`` as ``LOCAL_PEERCRED`` returns it; anything else (too
    short, another version) is refused, never guessed at."""
    if len(raw) < _HEAD.size:
        raise PeerCheckError(
            f"the peer credentials are {len(raw)} bytes, too short for a struct xucred",
            "the connection is refused",
        )
    version, uid = _HEAD.unpack_from(raw)
    if version != XUCRED_VERSION:
        raise PeerCheckError(
            f"the peer credentials are struct xucred version {version}, not {XUCRED_VERSION}",
            "the connection is refused",
        )
    return int(uid)
