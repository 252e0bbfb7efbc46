"""The engine process: a Unix socket server that runs forwarded CLI commands on warm vaults.

Each connection is checked to come from this user (``SO_PEERCRED``), carries one request line
and is answered with a hello line (version, pid) at once and the result when done; the command
itself is run by ``cli.served.run_request``, the runner ``serve --http`` uses, so the output is
the in-process output by construction. Vaults are opened on first use and kept, one lock each.
The engine exits when no request has come for its idle timeout.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socketserver
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx.db_location import is_postgres_url
from vaultctx.engine import indexing, logs, turns, watching
from vaultctx.engine_link import client
from vaultctx.engine_link import runtime_dir as runtime
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.engine.plugin_socket import PluginSocket

log = logging.getLogger("vaultctx.engine")
DEFAULT_IDLE_SECONDS = 15 * 60
MAX_REQUEST_BYTES = 256 * 1024


class WarmVault:
    """One vault kept open; its lock serialises the commands run on it."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.lock = threading.Lock()

    def warm(self) -> None:
        """Open the index and load the query models before the first command needs them."""
        from vaultctx.search.request import SearchRequest

        try:
            with self.lock, self.vault.reporting_index_damage():
                self.vault.search(SearchRequest("warm up", limit=1, max_tokens=50))
        except VaultctxError as exc:
            log.warning("%s: not warmed: %s", self.vault.path, exc.one_line())


class Engine:
    def __init__(self, folder: Path, idle_seconds: float) -> None:
        self.folder = folder
        self.idle_seconds = idle_seconds
        self.started = time.time()
        self._vaults: dict[tuple[str, str], WarmVault] = {}
        self._vaults_lock = threading.Lock()
        self._activity = threading.Lock()
        self._busy = 0
        self._last = time.monotonic()
        self.server: socketserver.UnixStreamServer | None = None
        self.watchers = watching.Watchers(self.drop)
        self._plugin: PluginSocket | None = None

    def vault(self, vault: str, db: str) -> WarmVault:
        with self._vaults_lock:
            warm = self._vaults.get((vault, db))
            if warm is None:
                from vaultctx.api import Vault

                warm = self._vaults[(vault, db)] = WarmVault(Vault(vault, db=db))
                self.watchers.start((vault, db), warm.vault)
            return warm

    def drop(self, key: tuple[str, str]) -> None:
        """Forget a vault (its folder is gone): the next command naming it opens it afresh."""
        with self._vaults_lock:
            warm = self._vaults.pop(key, None)
        if warm is not None:
            with warm.lock:
                warm.vault.close()

    def held_vaults(self) -> dict[tuple[str, str], WarmVault]:
        """The vaults opened so far, by (vault, db) (a copy: for the periodic jobs)."""
        with self._vaults_lock:
            return dict(self._vaults)

    def warm(self, vault: str, db: str) -> None:
        from vaultctx.cli.served import prepare

        prepare()
        try:
            self.vault(vault, db).warm()
        except VaultctxError as exc:
            log.warning("%s: not opened: %s", vault, exc.one_line())

    def plugin_socket(self) -> PluginSocket:
        """The Obsidian plugin's socket (``engine.plugin_socket``), made on first use."""
        with self._vaults_lock:
            if self._plugin is None:
                from vaultctx.engine.plugin_socket import PluginSocket

                self._plugin = PluginSocket(self.folder, self)
            return self._plugin

    def status(self) -> dict[str, Any]:
        with self._vaults_lock:
            keys = list(self._vaults)
        vaults = [
            {"vault": v, "db": d, "watching": self.watchers.watching((v, d))} for v, d in keys
        ]
        return {
            "pid": os.getpid(),
            "version": client.VERSION,
            "socket": str(client.socket_path(self.folder)),
            "started": self.started,
            "idle_seconds": self.idle_seconds,
            "vaults": vaults,
            "plugin_socket": str(self._plugin.path) if self._plugin is not None else None,
        }

    def begin(self) -> None:
        with self._activity:
            self._busy += 1

    def end(self) -> None:
        with self._activity:
            self._busy -= 1
            self._last = time.monotonic()

    def idle(self) -> bool:
        with self._activity:
            return self._busy == 0 and time.monotonic() - self._last >= self.idle_seconds

    def close(self) -> None:
        if self._plugin is not None:
            self._plugin.close()
        self.watchers.stop_all()
        with self._vaults_lock:
            vaults, self._vaults = list(self._vaults.values()), {}
        for warm in vaults:
            with warm.lock:
                warm.vault.close()


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        engine = self.server.engine
        try:
            uid = client.peer_uid(self.request)
        except VaultctxError as exc:  # never serve a connection whose peer is unknown
            log.warning("refused a connection: %s", exc.one_line())
            return
        if uid != os.getuid():
            log.warning("refused a connection from another user")
            return
        raw = self.rfile.readline(MAX_REQUEST_BYTES + 1)
        try:
            message = json.loads(raw)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        op = message.get("op")
        hello: dict[str, Any] = {"version": client.VERSION, "pid": os.getpid()}
        if op == "stop":
            self._send(hello)
            threading.Thread(target=self.server.shutdown, daemon=True).start()
            return
        if message.get("version") != client.VERSION:
            self._send(hello)  # the client sees the other version and stops this engine
            return
        engine.begin()
        try:
            if op == "status":
                self._send({**hello, "answer": engine.status()})
            elif op == "cli":
                self._send(hello)
                self._send(_run_cli(engine, message, self._send))
            elif op == "mcp":  # a `vaultctx serve` relay: the connection becomes its session
                self._send(hello)
                from vaultctx.engine.mcp_session import serve_mcp

                serve_mcp(engine, message, self.rfile, self.wfile)  # type: ignore[arg-type]
            elif op == "turn":  # ask and chat: both ways on this connection (engine/turns.py)
                self._send(hello)
                turns.serve(engine, message, self.rfile, self.wfile)
            elif op == "obsidian":  # `vaultctx obsidian connect`: where the plugin's routes are
                self._send(hello)  # at once: opening the vault outlasts the hello's wait
                self._send(_open_for_plugin(engine, message))
            else:
                self._send({**hello, "answer": {"error": f"unknown op {op!r}"}})
        finally:
            engine.end()

    def _send(self, data: dict[str, Any]) -> None:
        with self._sending:  # a streamed command's lines come from two threads
            self.wfile.write(json.dumps(data).encode() + b"\n")
            self.wfile.flush()

    def setup(self) -> None:
        super().setup()
        self._sending = threading.Lock()


def _run_cli(
    engine: Engine, message: dict[str, Any], send: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    from vaultctx.cli.forward import PROTOCOL
    from vaultctx.cli.served import run_request

    request = message.get("request")
    if not isinstance(request, dict):
        return {"protocol": PROTOCOL, "fallback": "no request"}
    problem = _other_settings(message, postgres=is_postgres_url(str(request.get("db"))))
    if problem is not None:
        return {"protocol": PROTOCOL, "fallback": problem}
    try:
        warm = engine.vault(str(request.get("vault")), str(request.get("db")))
    except VaultctxError as exc:
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    if indexing.wanted(request):  # not under the vault's lock: searches go on meanwhile
        return indexing.run(engine.watchers, warm.vault, request, send)
    with warm.lock, warm.vault.reporting_index_damage():
        return run_request(warm.vault, request)


def _other_settings(message: dict[str, Any], *, postgres: bool = False) -> str | None:
    """Why this engine may not answer the client (its settings environment differs, libpq's
    too for a PostgreSQL index), or None."""
    return client.settings_problem(message.get("settings_env"), postgres=postgres)


def _open_for_plugin(engine: Engine, message: dict[str, Any]) -> dict[str, Any]:
    """The plugin socket and this vault's base path on it, or why not (``fallback``: the
    plugin then uses `vaultctx ui`). The vault is also kept warm and watched, as for the CLI."""
    vault, db = str(message.get("vault")), str(message.get("db"))
    other = _other_settings(message, postgres=is_postgres_url(db))
    if other is not None:
        return {"fallback": other}
    try:
        engine.vault(vault, db)
        plugin = engine.plugin_socket()
        return {"socket": str(plugin.path), "base": plugin.open(vault, db)}
    except VaultctxError as exc:
        return {"fallback": exc.one_line()}


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path, engine: Engine) -> None:
        self.engine = engine
        super().__init__(str(path), _Handler)


def serve(engine: Engine) -> None:
    """Listen until stopped or idle; the socket is removed on the way out."""
    path = client.socket_path(engine.folder)
    path.unlink(missing_ok=True)  # the caller holds the lock: a socket left here is stale
    old_umask = os.umask(0o177)
    try:
        server = _Server(path, engine)
    finally:
        os.umask(old_umask)
    engine.server = server
    signal.signal(  # `kill PID` stops it as `engine stop` does: the socket is removed
        signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown, daemon=True).start()
    )
    watcher = threading.Thread(target=_exit_when_idle, args=(engine, server), daemon=True)
    watcher.start()
    from vaultctx.engine.periodic import start_periodic_jobs

    start_periodic_jobs(engine)
    log.info("engine %s listening at %s (pid %d)", client.VERSION, path, os.getpid())
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        path.unlink(missing_ok=True)
        engine.close()
        log.info("engine stopped")


def _exit_when_idle(engine: Engine, server: socketserver.BaseServer) -> None:
    while True:
        time.sleep(min(1.0, max(engine.idle_seconds / 4, 0.05)))
        if engine.idle():
            log.info("idle for %g s: stopping", engine.idle_seconds)
            server.shutdown()
            return


def idle_seconds() -> float:
    """``VAULTCTX_ENGINE_IDLE_SECONDS``, else ``idle_minutes`` of ``[engine]`` in the user's
    vaultctx.toml (the engine is the user's, not a vault's), else 15 minutes. A bad value is
    logged with its fix and the default used: nobody watches a detached process's errors."""
    given = os.environ.get(client.IDLE_ENV, "").strip()
    try:
        if given:
            return _positive(float(given), client.IDLE_ENV)
        setting = _user_setting("idle_minutes")
        return DEFAULT_IDLE_SECONDS if setting is None else _positive(setting, "idle_minutes") * 60
    except (ValueError, TypeError, VaultctxError) as exc:
        fix = exc.one_line() if isinstance(exc, VaultctxError) else str(exc)
        log.warning("idle timeout: %s; using %g s", fix, DEFAULT_IDLE_SECONDS)
        return DEFAULT_IDLE_SECONDS


def _user_setting(key: str) -> object:
    import platformdirs

    from vaultctx.config import APP_NAME, CONFIG_FILE_NAME, read_toml

    path = Path(platformdirs.user_config_dir(APP_NAME)) / CONFIG_FILE_NAME
    table = read_toml(path).get("engine", {}) if path.is_file() else {}
    return table.get(key) if isinstance(table, dict) else None


def _positive(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise VaultctxError(f"{name} is {value!r}", f"set {name} to a positive number")
    return float(value)


def main(argv: list[str]) -> int:
    """``python -m vaultctx.engine [--lock-fd N] [--warm VAULT DB]``."""
    import fcntl

    logging.basicConfig(level=logging.INFO, format=logs.FORMAT)  # until the log is known
    if not runtime.supported():  # never serve a socket whose peers cannot be checked
        log.error("this system cannot tell who connects to a Unix socket: not serving")
        return 2
    folder = runtime.runtime_dir()
    logs.set_up(folder)
    if "--lock-fd" in argv:
        lock = int(argv[argv.index("--lock-fd") + 1])  # taken by the client that started us
    else:
        lock = os.open(folder / runtime.LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("another engine runs already")
            return 0
    logs.write_private(folder / runtime.PID_NAME, f"{os.getpid()}\n")
    # Imported here, before any thread: numpy's first import is not thread-safe, and the warm-up
    # thread, the watcher and the first requests would otherwise import it at the same time.
    import numpy  # noqa: F401

    engine = Engine(folder, idle_seconds())
    if "--warm" in argv:
        at = argv.index("--warm")
        threading.Thread(target=engine.warm, args=(argv[at + 1], argv[at + 2]), daemon=True).start()
    try:
        serve(engine)
    finally:
        pid_file = folder / runtime.PID_NAME
        try:
            if pid_file.read_text(encoding="ascii").strip() == str(os.getpid()):
                pid_file.unlink()
        except OSError:
            pass
        os.close(lock)
    return 0
