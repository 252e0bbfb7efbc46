"""``vaultctx obsidian connect``: where the plugin reaches vaultctx.

Where the warm engine runs (Linux, macOS: a Unix socket whose peers it can check), the answer is
the engine's plugin socket and this vault's base path on it, the engine started first when none
answers; no token exists there, the engine checks each connection's uid. Otherwise (Windows,
``VAULTCTX_ENGINE=off``, a runtime folder refused, an engine with another environment) the
plugin runs this at start-up, as the user would run ``vaultctx ui``: the server recorded
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
from vaultctx.engine_link import client
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


class EngineConnection(NamedTuple):
    """The engine's plugin socket, this vault's base path on it, and the engine's pid (how the
    plugin tells a restarted engine from the one it lost)."""

    socket: str
    base: str
    pid: int
    started: bool

    def as_dict(self) -> dict[str, object]:
        return {"socket": self.socket, "base": self.base, "pid": self.pid, "started": self.started}


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


def engine_connection(vault: Path, db: Path, *, start: bool = True) -> EngineConnection | None:
    """The engine's plugin socket for this vault (the engine started when none answers and
    ``start``); None, with the reason on stderr when there is one, where the plugin must use
    a loopback HTTP server instead."""
    if os.name == "nt" or not client.enabled():
        return None
    message = {"op": "obsidian", "vault": str(vault), "db": str(db)}
    message["settings_env"] = client.settings_env()  # type: ignore[assignment]
    started = False
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while True:
        try:
            hello, answer = client.request(message, answer_timeout=START_DEADLINE_SECONDS)
            break
        except (client.EngineNotRunningError, client.EngineVersionError) as exc:
            if not start or time.monotonic() > deadline:
                _note(exc)
                return None
            if isinstance(exc, client.EngineVersionError):
                client.stop(wait=5.0)
            started = client.start((vault, db)) is not None or started
        except client.EngineBrokenError as exc:
            _note(exc)
            if not start or time.monotonic() > deadline:
                return None
            client.replace((vault, db))
            started = True
        except VaultctxError as exc:  # the runtime folder refused, a foreign socket
            _note(exc)
            return None
        time.sleep(0.2)
    if not isinstance(answer.get("socket"), str) or not isinstance(answer.get("base"), str):
        _note(VaultctxError(f"the engine cannot serve the plugin: {answer.get('fallback')}", ""))
        return None
    return EngineConnection(answer["socket"], answer["base"], int(hello["pid"]), started)


def _note(exc: VaultctxError) -> None:
    print(f"vaultctx: {exc.one_line()}; the plugin uses `vaultctx ui`", file=sys.stderr)


def connect(vault: Path, db: Path, *, start: bool = True) -> Connection | EngineConnection:
    """The engine's plugin socket where it serves; else the running server for this vault,
    started first when there is none and ``start``."""
    engine = engine_connection(vault, db, start=start)
    if engine is not None:
        return engine
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
