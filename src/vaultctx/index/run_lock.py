"""The lock that lets one ``vaultctx index`` run at a time on an index.

On POSIX it is ``flock`` on the lock file, taken without waiting: the same lock ``filelock``
takes there (``filelock.UnixFileLock``), so the two exclude each other, and the kernel drops it
when the process dies. Importing ``filelock`` costs ~10 ms of every no-op index run, so it is
imported only where ``fcntl`` is missing (Windows).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from typing_extensions import Self


class LockHeldError(VaultctxError, OSError):
    """Another process holds the lock. The indexer words it for the user (``IndexerBusyError``)
    and catches it before any other ``OSError``, which it also is."""

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(
            f"{path} is held by another process ({detail})",
            "wait for the other `vaultctx index` to finish (or stop it) and run again",
        )
        self.path = path


class HeldLock:
    """A lock taken for one ``with`` block: ``acquire`` on entry, ``release`` on exit. The file
    lock below and PostgreSQL's advisory lock (``postgres/lock.py``) share this shape."""

    def acquire(self) -> None:
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


class RunLock(HeldLock):
    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd: int | None = None
        self._fallback: object | None = None

    def acquire(self) -> None:
        """Take the lock now or raise ``LockHeldError``; any other ``OSError`` as it comes."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            self._acquire_with_filelock()
            return
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise LockHeldError(self._path, exc.strerror or "locked") from exc
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _acquire_with_filelock(self) -> None:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        lock = FileLock(str(self._path))
        try:
            lock.acquire(timeout=0)
        except Timeout as exc:
            raise LockHeldError(self._path, str(exc)) from exc
        self._fallback = lock

    def release(self) -> None:
        if self._fd is not None:
            import fcntl

            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        elif self._fallback is not None:  # pragma: no cover - Windows
            fallback, self._fallback = self._fallback, None
            fallback.release()  # type: ignore[attr-defined]
