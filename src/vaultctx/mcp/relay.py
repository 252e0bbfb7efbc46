"""``vaultctx serve`` over stdio as a thin relay to the user's engine.

An AI tool spawns ``vaultctx serve`` and times its answer to ``initialize``; importing the MCP
SDK alone takes about a second. So this module imports the standard library and
``engine_link`` only: it answers ``initialize`` and ``tools/list`` itself from
``relay_description.json`` (written by ``scripts/write_mcp_description.py`` from the real server,
and checked against it by a test), and relays every other message, byte for byte, to a session of
the real server in the engine (``engine.mcp_session``), where the vault is warm.

The engine is started when none runs. When it cannot be reached in 2 s, declines, is of another
version, or dies mid-session, the relay serves in-process instead (``mcp.line_session``: today's
stdio server, in this process) and says so once on stderr. The in-process server gets the
client's handshake replayed first, then every request the engine had not answered: reads run
again, and a call of a tool that changes the vault is answered with an error saying the change
may or may not have been made (running it twice could make it twice).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

from vaultctx import __version__
from vaultctx.engine_link import client
from vaultctx.errors import VaultctxError

DESCRIPTION_FILE = Path(__file__).with_name("relay_description.json")
REACH_SECONDS = client.HELLO_TIMEOUT  # the engine answers within this, or is not used
READY_SECONDS = client.ANSWER_TIMEOUT  # its session's own start (a cold engine imports the SDK)
CLOSE_SECONDS = 10.0  # after stdin ends: the backend's last answers
INTERNAL_ERROR = -32603


def description(allow_writes: bool) -> dict[str, Any]:
    """What the relay answers by itself: the ``initialize`` result (its protocol version is
    negotiated per client), the ``tools/list`` result, the handshake versions."""
    data = json.loads(DESCRIPTION_FILE.read_text(encoding="utf-8"))
    mode = data["modes"]["allow_writes" if allow_writes else "read_only"]
    return {**mode, "versions": data["handshake_versions"], "latest": data["latest_handshake"]}


def encode(message: dict[str, Any]) -> bytes:
    """One JSON-RPC line as the SDK writes it (compact, not ASCII-escaped)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def key(request_id: object) -> str:
    return json.dumps(request_id)


class _Backend:
    """A server session on a socket: the engine's, or the in-process server's socket pair."""

    def __init__(self, connection: socket.socket, reader: BinaryIO, drop: str | None) -> None:
        self.connection = connection
        self.reader = reader
        self.drop = drop  # the id of the replayed ``initialize``: its answer is the relay's own
        self.send_lock = threading.Lock()

    def send(self, line: bytes) -> None:
        try:
            with self.send_lock:
                self.connection.sendall(line)
        except OSError:
            pass  # the reader sees the end and the relay moves on; pending requests are kept

    def end_input(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_WR)


class Relay:
    def __init__(self, vault: Path, db: Path, allow_writes: bool, out: BinaryIO) -> None:
        self.vault, self.db, self.allow_writes = vault, db, allow_writes
        self.description = description(allow_writes)
        self.read_only = {
            tool["name"]
            for tool in self.description["tools"]["tools"]
            if tool.get("annotations", {}).get("readOnlyHint") is True
        }
        self.out, self.out_lock = out, threading.Lock()
        self.lock = threading.Lock()  # backend, queue, pending, replay
        self.backend: _Backend | None = None
        self.queue: list[bytes] = []  # lines waiting for a backend
        self.pending: dict[str, bytes] = {}  # requests a backend has and has not answered
        self.replay: list[bytes] = []  # the handshake, sent first to every backend
        self.drop: str | None = None
        self.era: str | None = None  # "handshake" once the first request is ``initialize``
        self.in_process = False
        self.dead: str | None = None  # nothing can serve: every request is answered with this
        self.stdin_done = threading.Event()
        self.backend_done = threading.Event()

    # --- from the client ----------------------------------------------------------------

    def from_client(self, line: bytes) -> None:
        message = _parsed(line)
        method = message.get("method") if message is not None else None
        if message is not None and "id" in message and isinstance(method, str):
            if self.era is None:
                self.era = "handshake" if method == "initialize" else "passthrough"
            answer = self._own_answer(method, message)
            if answer is not None:
                self.write(encode({"jsonrpc": "2.0", "id": message["id"], "result": answer}))
                if method == "initialize":
                    with self.lock:
                        self.replay.append(line)
                        self.drop = key(message["id"])
                        if self.backend is not None:  # not yet: a backend starts with replay
                            self.backend.drop = self.drop
                            self.backend.send(line)
                return
        if method == "notifications/initialized" and self.drop is not None:
            with self.lock:
                self.replay.append(line)
        self.forward(line, message)

    def _own_answer(self, method: str, message: dict[str, Any]) -> dict[str, Any] | None:
        """The ``initialize`` or ``tools/list`` result the relay gives itself, or None."""
        if self.era != "handshake" or not _simple_id(message["id"]):
            return None
        params = message.get("params")
        if method == "initialize" and self.drop is None and _valid_initialize(params):
            assert isinstance(params, dict)
            requested = params["protocolVersion"]
            negotiated = requested if requested in self.description["versions"] else None
            result = dict(self.description["initialize"])
            result["protocolVersion"] = negotiated or self.description["latest"]
            return result
        plain = params is None or (
            isinstance(params, dict)
            and set(params) <= {"cursor"}
            and isinstance(params.get("cursor", ""), str)
        )
        if method == "tools/list" and self.drop is not None and plain:
            return dict(self.description["tools"])
        return None

    def forward(self, line: bytes, message: dict[str, Any] | None) -> None:
        request = message is not None and "method" in message and "id" in message
        with self.lock:
            if self.dead is not None:
                if request:
                    assert message is not None
                    self.write(_error(message["id"], self.dead))
                return
            if self.backend is None:
                self.queue.append(line)
                return
            if request:
                assert message is not None
                self.pending[key(message["id"])] = line
            self.backend.send(line)

    def end_of_input(self) -> None:
        """The client closed stdin: let the backend finish its session, then stop."""
        self.stdin_done.set()
        with self.lock:
            backend = self.backend
        if backend is None:
            return
        backend.end_input()
        self.backend_done.wait(CLOSE_SECONDS)

    # --- to the client ------------------------------------------------------------------

    def write(self, line: bytes) -> None:
        with self.out_lock:
            self.out.write(line)
            self.out.flush()

    def from_backend(self, backend: _Backend, line: bytes) -> None:
        message = _parsed(line)
        if message is not None and "id" in message and "method" not in message:
            answered = key(message["id"])
            if backend.drop == answered:
                backend.drop = None
                return
            with self.lock:
                self.pending.pop(answered, None)
        self.write(line)

    # --- backends -----------------------------------------------------------------------

    def attach(self, connection: socket.socket, reader: BinaryIO) -> None:
        """Make this session the backend: the handshake first, then what waited for it."""
        with self.lock:
            backend = _Backend(connection, reader, self.drop)
            self.backend = backend
            waiting, self.queue = self.queue, []
            for line in self.replay:
                backend.send(line)
            for line in waiting:
                message = _parsed(line)
                if message is not None and "method" in message and "id" in message:
                    self.pending[key(message["id"])] = line
                backend.send(line)
        threading.Thread(target=self._read, args=(backend,), daemon=True).start()

    def _read(self, backend: _Backend) -> None:
        problem = "it closed the connection"
        try:
            while True:
                line = backend.reader.readline(client.MAX_LINE_BYTES + 1)
                if not line.endswith(b"\n"):
                    break
                self.from_backend(backend, line)
        except OSError as exc:
            problem = f"{type(exc).__name__}: {exc}"
        finally:
            backend.connection.close()
        self.lost(backend, problem)

    def lost(self, backend: _Backend, problem: str) -> None:
        with self.lock:
            if self.backend is not backend:
                return
            self.backend = None
            if self.stdin_done.is_set():
                self.backend_done.set()
                return
            unanswered, self.pending = self.pending, {}
            again = [line for line in unanswered.values() if self._safe_again(line)]
            refused = [line for line in unanswered.values() if not self._safe_again(line)]
            self.queue = again + self.queue
            was_in_process = self.in_process
        for line in refused:
            message = _parsed(line) or {}
            name = (message.get("params") or {}).get("name")
            self.write(
                _error(
                    message.get("id"),
                    f"the vaultctx engine stopped while running {name}; the change may or may "
                    "not have been made: check with `vaultctx changes` before calling it again",
                )
            )
        if was_in_process:
            self.give_up(f"the in-process MCP server stopped ({problem})")
            return
        self.serve_in_process(f"the engine stopped mid-session ({problem})")

    def _safe_again(self, line: bytes) -> bool:
        """Whether a request may run a second time: anything but a call of a tool that writes."""
        message = _parsed(line) or {}
        if message.get("method") != "tools/call":
            return True
        params = message.get("params")
        return isinstance(params, dict) and params.get("name") in self.read_only

    def serve_in_process(self, why: str) -> None:
        print(f"vaultctx: serving MCP in-process: {why}", file=sys.stderr, flush=True)
        try:
            from vaultctx.mcp.line_session import in_process_socket

            connection = in_process_socket(self.vault, self.db, allow_writes=self.allow_writes)
        except VaultctxError as exc:
            print(f"error: {exc.one_line()}", file=sys.stderr, flush=True)
            self.give_up(exc.one_line())
            return
        with self.lock:
            self.in_process = True
        self.attach(connection, connection.makefile("rb"))

    def give_up(self, problem: str) -> None:
        """Nothing can serve: every request waiting, and every later one, gets ``problem``."""
        with self.lock:
            self.dead = problem
            waiting, self.queue = self.queue, []
            waiting += list(self.pending.values())
            self.pending = {}
            self.backend_done.set()
        for line in waiting:
            message = _parsed(line)
            if message is not None and "method" in message and "id" in message:
                self.write(_error(message["id"], problem))

    def connect(self) -> None:
        """The engine's session as backend, else the in-process server (run in a thread)."""
        try:
            connection, reader = open_engine_session(self.vault, self.db, self.allow_writes)
        except client.EngineVersionError as exc:
            self.serve_in_process(exc.one_line())
            # This vaultctx's engine for the next client, once this session is served.
            client.start_replacement((self.vault, self.db), client.stop(wait=2.0))
            return
        except client.EngineBrokenError as exc:
            # Killed at once (a wedged engine keeps its socket from every other client),
            # replaced once this session is served: the new one may wait for the old lock.
            old = client.kill_broken()
            self.serve_in_process(exc.one_line())
            client.start_replacement((self.vault, self.db), old)
            return
        except VaultctxError as exc:
            self.serve_in_process(exc.one_line())
            return
        except OSError as exc:
            self.serve_in_process(f"the engine cannot be reached ({exc})")
            return
        self.attach(connection, reader)


class EngineDeclinedError(VaultctxError):
    def __init__(self, problem: str) -> None:
        super().__init__(f"the engine declined: {problem}", "this session is served in-process")


def open_engine_session(vault: Path, db: Path, allow_writes: bool) -> tuple[socket.socket, Any]:
    """A connection to the engine, its MCP session ready; the engine is started when none runs
    and must answer within ``REACH_SECONDS``. Raises ``engine_link.client``'s errors."""
    message = {
        "version": client.VERSION,
        "op": "mcp",
        "vault": str(vault),
        "db": str(db),
        "writes": allow_writes,
        "settings_env": client.settings_env(),
    }
    deadline = time.monotonic() + REACH_SECONDS
    started = False
    while True:
        try:
            return _session(message, deadline)
        except client.EngineNotRunningError:
            if not started:
                client.start((vault, db))
                started = True
            if time.monotonic() >= deadline:
                raise client.EngineBrokenError(
                    f"no engine answered within {REACH_SECONDS:g} s"
                ) from None
            time.sleep(0.02)


def _session(message: dict[str, Any], deadline: float) -> tuple[socket.socket, Any]:
    path = client.socket_path()
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(max(deadline - time.monotonic(), 0.05))
        try:
            connection.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise client.EngineNotRunningError(path) from exc
        except TimeoutError as exc:
            raise client.EngineBrokenError(f"the engine at {path} did not accept in time") from exc
        uid = client.peer_uid(connection)
        if uid != os.getuid():
            raise client.EngineForeignError(path, uid)
        reader = connection.makefile("rb")
        client.send_line(connection, message, path)
        hello = client._line(reader, f"the engine at {path} said no hello in time")
        if hello.get("version") != client.VERSION:
            raise client.EngineVersionError(str(hello.get("version")))
        connection.settimeout(READY_SECONDS)
        ready = client._line(reader, f"the engine at {path} did not start the session")
        if isinstance(ready.get("fallback"), str):
            raise EngineDeclinedError(ready["fallback"])
        if ready.get("ready") is not True:
            raise client.EngineBrokenError(f"the engine at {path} answered {ready!r}")
        connection.settimeout(None)
    except BaseException:
        connection.close()
        raise
    return connection, reader


def run(vault: Path, db: Path, *, allow_writes: bool) -> int:
    """Relay stdin/stdout until the client closes stdin. Whatever else writes to fd 1 (a model
    library, a stray print) lands on stderr: only the relay writes the protocol."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    relay = Relay(vault, db, allow_writes, out)
    threading.Thread(target=relay.connect, name="vaultctx-relay-connect", daemon=True).start()
    stdin = sys.stdin.buffer
    try:
        while True:
            line = stdin.readline()
            if not line:
                break
            if line.strip():
                relay.from_client(line if line.endswith(b"\n") else line + b"\n")
        relay.end_of_input()
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    return 0


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _simple_id(request_id: object) -> bool:
    return isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)
    )


def _valid_initialize(params: object) -> bool:
    """The fields the SDK requires of ``initialize``; anything else goes to the server, whose
    error the client then gets."""
    if not isinstance(params, dict):
        return False
    info = params.get("clientInfo")
    return (
        isinstance(params.get("protocolVersion"), str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    )


def _error(request_id: object, problem: str) -> bytes:
    return encode(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": INTERNAL_ERROR, "message": f"vaultctx {__version__}: {problem}"},
        }
    )
