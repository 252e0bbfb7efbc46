"""``vaultctx obsidian connect``: the address and token of the server the plugin talks to.

The plugin runs this at start-up, as the user would run ``vaultctx ui``: the server recorded
beside the vault's index (``loopback.server_link``, a 0600 file of this user) when one is
running, else a ``vaultctx ui`` started in the background, on a free loopback port, and waited
for until it has recorded itself. The token goes to the plugin over the pipe of the process it
started, never into a file of the vault or the plugin's settings. The started server's output
goes to a private log (its address carries the token, so standard output goes nowhere).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import platformdirs

from vaultctx.config import APP_NAME
from vaultctx.errors import VaultctxError
from vaultctx.loopback import server_link
from vaultctx.private_log import open_private_log

START_DEADLINE_SECONDS = 90.0  # a cold start imports the search stack; a loaded machine is slow
LOG_NAME = "obsidian-server.log"


class Connection(NamedTuple):
    url: str
    token: str
    started: bool

    def as_dict(self) -> dict[str, object]:
        return {"url": self.url, "token": self.token, "started": self.started}


def log_path() -> Path:
    return Path(platformdirs.user_state_dir(APP_NAME)) / LOG_NAME


def running_server(db: Path) -> server_link.ServerInfo | None:
    """The server recorded for this index, if it still answers and has a token."""
    info = server_link.find_server(db, environ={})
    if info is None or info.token is None or not server_link.is_running(info):
        return None
    return info


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_ui(vault: Path, db: Path) -> subprocess.Popen[bytes]:
    """``vaultctx ui`` for this vault in its own session, so it outlives the command."""
    command = [sys.executable, "-m", "vaultctx", "ui", "--vault", str(vault), "--db", str(db)]
    command += ["--port", str(free_port())]
    with open_private_log(log_path(), limit=1_000_000) as log:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


def connect(vault: Path, db: Path, *, start: bool = True) -> Connection:
    """The running server for this vault, started first when there is none and ``start``."""
    info = running_server(db)
    if info is not None:
        return Connection(info.url, info.token or "", started=False)
    if not start:
        raise VaultctxError(
            f"no vaultctx server is running for {vault}", "run `vaultctx ui --vault VAULT`"
        )
    process = start_ui(vault, db)
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        info = running_server(db)
        if info is not None and info.pid == process.pid:
            return Connection(info.url, info.token or "", started=True)
        if process.poll() is not None:
            break
        time.sleep(0.2)
    raise VaultctxError(
        f"the vaultctx server for {vault} did not start",
        f"see {log_path()}, or run `vaultctx ui --vault {vault}` yourself to read its error",
    )
