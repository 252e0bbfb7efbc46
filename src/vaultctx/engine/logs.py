"""The engine's log: one private file in its runtime folder, rotated so it never grows past a
few megabytes however long the engine lives.

The client that starts the engine points its stdout and stderr at the same file (so a failure
before this module runs is still written somewhere). Once logging is set up here, Python-level
writes to stdout and stderr (a thread's traceback, a library's warning) go through the logger
and are rotated with the rest; the files are 0600 from their first byte, rotated ones too.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import sys
from pathlib import Path
from typing import Any

from vaultctx.engine_link import runtime_dir as runtime

LOG_BYTES_ENV = "VAULTCTX_ENGINE_LOG_BYTES"
DEFAULT_LOG_BYTES = 2 * 1024 * 1024
BACKUPS = 2  # engine.log, engine.log.1, engine.log.2: at most 3 × the size above
FORMAT = "%(asctime)s engine %(process)d %(levelname)s %(message)s"


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating handler whose every file (the first and each after a rollover) is made 0600:
    the log names the user's vaults and commands."""

    def _open(self) -> Any:
        descriptor = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(descriptor, 0o600)  # made earlier by someone with a laxer umask
        return open(descriptor, "a", encoding=self.encoding, errors=self.errors)


class _LogStream(io.TextIOBase):
    """sys.stdout or sys.stderr of the engine: each line written becomes a log record."""

    def __init__(self, logger: logging.Logger, level: int, descriptor: int) -> None:
        self._logger, self._level, self._descriptor = logger, level, descriptor
        self._partial = ""

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            if line.strip():
                self._logger.log(self._level, "%s", line)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def fileno(self) -> int:
        return self._descriptor  # faulthandler and the like write there directly


def log_bytes() -> int:
    """The size at which the log is rotated: ``VAULTCTX_ENGINE_LOG_BYTES``, else 2 MB."""
    given = os.environ.get(LOG_BYTES_ENV, "").strip()
    return int(given) if given.isdigit() and int(given) > 0 else DEFAULT_LOG_BYTES


def set_up(folder: Path) -> logging.Handler:
    """Log to ``folder``/engine.log, rotated; the process's Python output goes there too."""
    handler = PrivateRotatingFileHandler(
        folder / runtime.LOG_NAME, maxBytes=log_bytes(), backupCount=BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    # A failing write (a full disk) would be reported on stderr, which is this log again.
    logging.raiseExceptions = False
    output = logging.getLogger("vaultctx.engine.output")
    sys.stdout = _LogStream(output, logging.INFO, 1)
    sys.stderr = _LogStream(output, logging.WARNING, 2)
    return handler


def write_private(path: Path, text: str) -> None:
    """``text`` into ``path``, mode 0600 whatever the umask or an older file's mode."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        os.write(descriptor, text.encode("utf-8"))
    finally:
        os.close(descriptor)
