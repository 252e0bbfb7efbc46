"""The engine's private folder: its socket, its lock, its pid and its log.

A Unix socket's permissions are the folder's: anyone who can reach the socket file can connect.
So the folder is this user's alone (mode 0700, owned by this uid) or it is not used at all; a
folder another user made first (``/tmp`` is shared) is refused, never repaired, since its owner
could have put their own socket there.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from vaultctx.errors import VaultctxError

RUNTIME_ENV = "VAULTCTX_RUNTIME_DIR"
SOCKET_NAME = "engine.sock"
PLUGIN_SOCKET_NAME = "obsidian.sock"  # the Obsidian plugin's HTTP routes (engine.plugin_socket)
LOCK_NAME = "engine.lock"
PID_NAME = "engine.pid"
LOG_NAME = "engine.log"


class RuntimeDirError(VaultctxError):
    """The runtime folder is not this user's alone: the engine is not used."""

    def __init__(self, folder: Path, problem: str) -> None:
        super().__init__(
            f"not using the engine: its folder {folder} {problem}",
            f"remove {folder} (it is made again, mode 0700) or set {RUNTIME_ENV} to a folder of "
            "yours; until then commands run in-process",
        )


def runtime_dir() -> Path:
    """The engine's folder, made (0700) when missing and checked every time."""
    folder = _chosen()
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise RuntimeDirError(folder, f"cannot be made ({exc.strerror})") from exc
    check(folder)
    return folder


def _chosen() -> Path:
    given = os.environ.get(RUNTIME_ENV, "").strip()
    if given:
        return Path(given).expanduser().absolute()
    xdg = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "vaultctx"
    return Path(f"/tmp/vaultctx-{os.getuid()}")


def check(folder: Path) -> None:
    """Refuse a folder that is a link, not a folder, not ours, or open to others."""
    try:
        info = os.lstat(folder)
    except OSError as exc:
        raise RuntimeDirError(folder, f"cannot be read ({exc.strerror})") from exc
    if not stat.S_ISDIR(info.st_mode):
        raise RuntimeDirError(folder, "is not a folder")
    if info.st_uid != os.getuid():
        raise RuntimeDirError(folder, f"belongs to another user (uid {info.st_uid})")
    if stat.S_IMODE(info.st_mode) & 0o077:
        mode = oct(stat.S_IMODE(info.st_mode))
        raise RuntimeDirError(folder, f"is open to other users (mode {mode}, wanted 0o700)")


def supported() -> bool:
    """Where the engine runs: systems whose Unix sockets tell the peer's uid (Linux's
    ``SO_PEERCRED``, macOS's and the BSDs' ``LOCAL_PEERCRED``: ``engine_link.peer``). Elsewhere
    (Windows) every command runs in-process, as before the engine."""
    from vaultctx.engine_link import peer

    return peer.method() is not None


# sizeof(sockaddr_un.sun_path), the terminating NUL included: a longer path cannot be bound.
SUN_PATH_BYTES = 104 if sys.platform == "darwin" or "bsd" in sys.platform else 108


class SocketPathTooLongError(VaultctxError):
    """The socket's path does not fit a Unix socket address."""

    def __init__(self, path: Path) -> None:
        size = len(os.fsencode(path))
        super().__init__(
            f"the engine socket path {path} is {size} bytes, longer than a Unix socket allows "
            f"({SUN_PATH_BYTES - 1} on this system)",
            f"set {RUNTIME_ENV} to a shorter folder (e.g. /tmp/vaultctx-{os.getuid()}); "
            "until then commands run in-process",
        )


def socket_path(folder: Path, name: str = SOCKET_NAME) -> Path:
    """The engine's socket ``name`` in ``folder``, refused when the system cannot bind so long
    a path (it would fail as a bare ``OSError`` deep in ``bind`` or ``connect``)."""
    path = folder / name
    if len(os.fsencode(path)) >= SUN_PATH_BYTES:
        raise SocketPathTooLongError(path)
    return path
