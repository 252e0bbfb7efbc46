"""Talk to the user's engine over its Unix socket, start it, stop it.

One request per connection, each a line of JSON; the engine first answers a line of its own
(``hello``: its version and pid) at once, then the answer when the work is done. The hello is
how a wedged engine is told from a slow command: no hello within ``HELLO_TIMEOUT`` and the
engine is replaced. A client and an engine of different versions never exchange work: the
engine answers a hello naming its version and nothing else, and the client stops it.

The engine is started detached (a new session, its output to a private log) by the first client
that finds none. The lock that makes it the only one is taken here, before it is started, and
handed to it (an inherited descriptor): between the start and the engine's first line of Python
no second client can start another.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx import __version__
from vaultctx.engine_link import peer
from vaultctx.engine_link import runtime_dir as runtime
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from collections.abc import Callable

ENGINE_ENV = "VAULTCTX_ENGINE"  # "off" runs every command in-process
IDLE_ENV = "VAULTCTX_ENGINE_IDLE_SECONDS"
PROTOCOL = 1
VERSION = f"{__version__}/{PROTOCOL}"
# The environment that decides which settings, index locations and models a command uses,
# beyond the per-command variables ``cli.forward`` sends: an engine answers only clients whose
# values are its own (another shell with another XDG_CONFIG_HOME runs in-process).
SETTINGS_ENV = (
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "VAULTCTX_KOREAN_ANALYZER",
    "VAULTCTX_DEBUG",
)
HELLO_TIMEOUT = 2.0  # no hello in this time: the engine is wedged, and replaced
ANSWER_TIMEOUT = 60.0  # a command's own time, after the hello
MAX_LINE_BYTES = 32 * 1024 * 1024
STOP_WAIT = 10.0
# How long a replacement waits for the old engine's lock to be released.
REPLACE_WAIT = 10.0


class EngineNotRunningError(VaultctxError):
    def __init__(self, socket_path: Path) -> None:
        super().__init__(
            f"no engine is running (no socket answers at {socket_path})",
            "run `vaultctx engine start`, or any search starts it",
        )


class EngineBrokenError(VaultctxError):
    """The engine did not say hello in time, or closed the connection mid-answer."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem, "a new engine is started; this command runs in-process")


class EngineVersionError(VaultctxError):
    def __init__(self, theirs: str) -> None:
        super().__init__(
            f"the running engine is version {theirs}, this vaultctx is {VERSION}",
            "it is stopped and a new one started; this command runs in-process",
        )
        self.theirs = theirs


class EngineForeignError(VaultctxError):
    def __init__(self, socket_path: Path, uid: int) -> None:
        super().__init__(
            f"the engine socket {socket_path} is served by another user (uid {uid})",
            f"remove {socket_path.parent}; until then commands run in-process",
        )


def peer_uid(connection: socket.socket) -> int:
    """The uid of the process at the other end, as the kernel vouches for it
    (``engine_link.peer``: ``PeerCheckError`` where it cannot)."""
    return peer.peer_uid(connection)


def enabled() -> bool:
    """Whether this process may use the engine at all."""
    off = os.environ.get(ENGINE_ENV, "").strip().lower() in ("off", "0", "no", "false")
    return not off and runtime.supported()


# Where a PostgreSQL index's server and password are found (libpq's variables, the keyring's
# session bus): the engine answers for such an index only when the command's are its own.
# Compared only then, so shells that differ in them still share the engine for SQLite indexes.
POSTGRES_ENV = (
    "PGPASSFILE",
    "PGHOST",
    "PGHOSTADDR",
    "PGPORT",
    "PGUSER",
    "PGDATABASE",
    "PGSERVICE",
    "PGSERVICEFILE",
    "PGSYSCONFDIR",
    "PGSSLMODE",
    "PGSSLROOTCERT",
    "PGSSLCERT",
    "PGSSLKEY",
    "PGOPTIONS",
    "DBUS_SESSION_BUS_ADDRESS",
)


def settings_env() -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in (*SETTINGS_ENV, *POSTGRES_ENV)}


def settings_problem(theirs: object, *, postgres: bool = False) -> str | None:
    """Why a command's settings environment is not the engine's, or None when it is; the
    PostgreSQL variables count for a ``postgres`` index only."""
    mine = settings_env()
    names = [*SETTINGS_ENV, *(POSTGRES_ENV if postgres else ())]
    differ = sorted(n for n in names if not isinstance(theirs, dict) or theirs.get(n) != mine[n])
    return f"the engine runs with another {', '.join(differ)}" if differ else None


def socket_path(folder: Path | None = None) -> Path:
    return runtime.socket_path(folder or runtime.runtime_dir())


def request(
    message: dict[str, Any],
    *,
    answer_timeout: float = ANSWER_TIMEOUT,
    on_stream: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(hello, answer) of the engine for ``message``; raises the errors above.

    Before its answer the engine may send lines ``{"stream": text}`` (a long command's stderr
    as it is written, and an empty one every few seconds while it works, so the answer's
    timeout runs from the last line, not from the start): each goes to ``on_stream``."""
    path = socket_path()
    connection = connect(path)
    with connection:
        reader = connection.makefile("rb")
        try:
            send_line(connection, {"version": VERSION, **message}, path)
            hello = _line(reader, f"the engine at {path} said no hello in {HELLO_TIMEOUT:g} s")
            if message.get("op") == "stop":
                return hello, {}
            if hello.get("version") != VERSION:
                raise EngineVersionError(str(hello.get("version")))
            if "answer" in hello:
                return hello, hello.get("answer") or {}
            connection.settimeout(answer_timeout)
            answer = _line(reader, f"the engine at {path} stopped answering mid-command")
            while isinstance(answer.get("stream"), str):
                if on_stream is not None:
                    on_stream(answer["stream"])
                answer = _line(reader, f"the engine at {path} stopped answering mid-command")
        finally:
            reader.close()
    return hello, answer


def connect(path: Path) -> socket.socket:
    """A connection to the engine at ``path``, checked to be this user's, with the hello's
    timeout set."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(HELLO_TIMEOUT)
    try:
        connection.connect(str(path))
        uid = peer_uid(connection)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        connection.close()
        raise EngineNotRunningError(path) from exc
    except TimeoutError as exc:
        connection.close()
        raise EngineBrokenError(f"the engine at {path} did not accept in time") from exc
    except BaseException:  # the peer cannot be checked (PeerCheckError), or anything else
        connection.close()
        raise
    if uid != os.getuid():  # the folder's checks make this impossible; checked all the same
        connection.close()
        raise EngineForeignError(path, uid)
    return connection


def send_line(connection: socket.socket, message: dict[str, Any], path: Path) -> None:
    """Send one request line. An engine killed between the client's connect and this send
    resets the connection here (a broken pipe): that is a broken engine, to be replaced like
    one that says no hello, not an error of the command's."""
    try:
        connection.sendall(json.dumps(message).encode() + b"\n")
    except OSError as exc:
        raise EngineBrokenError(
            f"the engine at {path} closed the connection before the request was sent "
            f"({type(exc).__name__})"
        ) from exc


def _line(reader: Any, problem: str) -> dict[str, Any]:
    try:
        raw = reader.readline(MAX_LINE_BYTES + 1)
    except (TimeoutError, OSError) as exc:
        raise EngineBrokenError(f"{problem} ({type(exc).__name__})") from exc
    if not raw.endswith(b"\n"):
        raise EngineBrokenError(problem)
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise EngineBrokenError(f"{problem} (not JSON)") from exc
    if not isinstance(data, dict):
        raise EngineBrokenError(f"{problem} (not a JSON object)")
    return data


def running_pid() -> int | None:
    """The engine's pid from its file, when that process still exists."""
    try:
        text = (runtime.runtime_dir() / runtime.PID_NAME).read_text(encoding="ascii").strip()
        pid = int(text)
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def start(warm: tuple[Path, Path | str] | None = None) -> int | None:
    """Start the engine detached unless one holds the lock; its pid, or None if one runs (or
    is starting) already. Returns at once: it never waits for the engine to answer."""
    import fcntl
    import subprocess

    folder = runtime.runtime_dir()
    lock = os.open(folder / runtime.LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # an engine holds it: running, starting or stopping
        log = os.open(folder / runtime.LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        command = [sys.executable, "-m", "vaultctx.engine", "--lock-fd", str(lock)]
        if warm is not None:
            command += ["--warm", str(warm[0]), str(warm[1])]
        try:
            child = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=folder,
                start_new_session=True,
                pass_fds=(lock,),
            )
        finally:
            os.close(log)
        child.returncode = 0  # never waited for: it outlives this process by design
        return child.pid
    finally:
        os.close(lock)  # the engine holds the lock through its inherited copy


def stop(*, wait: float = STOP_WAIT) -> int | None:
    """Ask the engine to stop (any version understands this) and wait for it to go; kill it
    if it does not. Its pid, or None when none was running."""
    pid = running_pid()
    with contextlib.suppress(VaultctxError, OSError):
        request({"op": "stop"})
    if pid is None:
        return None
    if not _gone(pid, wait):
        kill(pid)
    return pid


def kill(pid: int) -> None:
    """SIGKILL ``pid`` if it is this user's engine (its command line says so), and wait for it
    to go, so the lock it held is free. A process already on its way out (killed by someone
    else a moment ago) has no command line any more, as its memory goes before its files are
    closed: it is only waited for, or the new engine would find the lock still held and never
    start (tests/engine/test_engine_lost_before_request.py)."""
    if _signal_engine(pid):
        _gone(pid, 5.0)


def _signal_engine(pid: int) -> bool:
    """SIGKILL ``pid`` when it is an engine; whether it is (or was) one, to be waited for."""
    command = _command_line(pid)
    if command and b"vaultctx.engine" not in command:
        return False  # another program has this pid now
    if command:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            return False
    return True


def _command_line(pid: int) -> bytes:
    """``pid``'s command line: from /proc where there is one (Linux), else from ``ps`` (macOS
    and the BSDs); empty when the process is gone or cannot be read."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        if os.path.isdir("/proc/self"):
            return b""
    import subprocess

    try:
        listed = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return b""
    return listed.stdout


def replace(warm: tuple[Path, Path | str] | None = None) -> None:
    """A broken engine gone and a new one started (not waited for), in one step: for a caller
    that waits for the new engine anyway (``obsidian connect``)."""
    start_replacement(warm, kill_broken())


def kill_broken() -> int | None:
    """SIGKILL the running engine at once, without waiting for it to go; its pid, for
    ``start_replacement``. A wedged engine must not keep the socket (every other client would
    wait its 2 s for a hello), but the wait for its lock belongs after the command's answer,
    not before it (cli/forward.py: the command runs in-process meanwhile)."""
    pid = running_pid()
    if pid is not None:
        _signal_engine(pid)
    return pid


def start_replacement(warm: tuple[Path, Path | str] | None, old: int | None) -> None:
    """Start a new engine once the broken one (``old``, killed by ``kill_broken``) is gone.
    Its lock can outlive it by a moment (its files close after it is reported gone on a loaded
    machine), so a start that finds the lock held tries again for up to ``REPLACE_WAIT``,
    unless another engine has taken over meanwhile (a pid file naming a live process other
    than the old one)."""
    if old is not None:
        kill(old)
    deadline = time.monotonic() + REPLACE_WAIT
    while start(warm) is None and time.monotonic() < deadline:
        now = running_pid()
        if now is not None and now != old:
            return  # another client's engine runs, or is starting
        time.sleep(0.1)


def _gone(pid: int, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().split(b") ", 1)[-1].startswith(b"Z"):
                    return True  # a zombie of ours: it has exited
        except OSError:
            if os.path.isdir("/proc/self"):  # gone between the two looks; without /proc
                return True  # (macOS) os.kill alone decides
        time.sleep(0.02)
    return False
