"""A turn of ``ask`` or ``chat`` run in the engine for a thin client (cli/forward_turn.py).

The command is the CLI's own (``cli.agent_cmds``), parsed and run as in the client's process;
what differs is set for the request alone: its output goes to the client as it is written
(``out``/``err`` frames, so an answer streams), the lines it reads come from the client's
terminal (``cli.remote_terminal``), and its vault is opened for the turn, searching through the
engine's warm copy of that vault. So the bytes the client prints are the in-process bytes by
construction, and the vault's lock is held for one search at a time, never for a model's answer:
a ``search`` from another client waits for a search, not for a turn.

The engine answers a turn only for a client whose environment is its own (a digest of it, see
engine_link/turn_link.py): the keys, settings and config folders the turn uses are the
engine's, so they are the client's; a client of another environment runs its turn itself. The
socket is reachable by this user alone (runtime_dir.py, ``SO_PEERCRED``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import queue
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from vaultctx.engine_link.turn_link import environment_digest
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest
    from vaultctx.search.retriever import SearchResponse

log = logging.getLogger("vaultctx.engine")


class WarmVault(Protocol):
    """``engine.server.WarmVault``: the engine's open vault and the lock of its searches."""

    vault: Vault
    lock: threading.Lock


class Engine(Protocol):
    def vault(self, vault: str, db: str) -> WarmVault: ...


TURNS = frozenset({"ask", "chat"})
MAX_LINE_BYTES = 256 * 1024
# The engine's environment as it started (this module is imported then, by engine.server).
STARTED_WITH = environment_digest()


def serve(engine: Engine, message: Mapping[str, Any], rfile: Any, wfile: Any) -> None:
    """Answer one ``turn`` request on its connection (the hello is sent already)."""
    from vaultctx.cli.forward import PROTOCOL

    link = TurnLink(rfile, wfile)
    request = message.get("request")
    if message.get("environment") != STARTED_WITH:
        link.send({"protocol": PROTOCOL, "fallback": "the engine runs with another environment"})
        return
    if not isinstance(request, dict):
        link.send({"protocol": PROTOCOL, "fallback": "no request"})
        return
    try:
        warm = engine.vault(str(request.get("vault")), str(request.get("db")))
    except VaultctxError as exc:
        link.send({"protocol": PROTOCOL, "fallback": exc.one_line()})
        return
    link.listen()
    log.info("turn: %s", request.get("argv", ["?"])[0])
    link.send(run_turn(warm, request, link))
    log.info("turn done")


class TurnLink:
    """The connection to the client during a turn: frames out, lines and Ctrl-C in. It is the
    ``remote_terminal.ClientTerminal`` of the turn."""

    def __init__(self, rfile: Any, wfile: Any) -> None:
        self.cwd = "/"
        self.stdin_isatty = False
        self.stdin_text = ""
        self.wrote = False
        self.gone = False
        self._rfile, self._wfile = rfile, wfile
        self._send_lock = threading.Lock()
        self._state = threading.Lock()
        self._replies: queue.Queue[tuple[str, str]] = queue.Queue()
        self._reading = False
        self._interrupted = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    def send(self, data: Mapping[str, Any]) -> None:
        with self._send_lock:
            if self.gone:
                return
            try:
                self._wfile.write(json.dumps(data).encode() + b"\n")
                self._wfile.flush()
            except (OSError, ValueError):
                self.gone = True
        if self.gone:
            self.interrupt()

    def write(self, name: str, text: str) -> None:
        if text:
            self.wrote = True
            self.send({name: text})

    def listen(self) -> None:
        threading.Thread(target=self._listen, name="turn-client", daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                raw = self._rfile.readline(MAX_LINE_BYTES + 1)
            except (OSError, ValueError):
                raw = b""
            if not raw.endswith(b"\n"):  # the client closed (or was killed): its turn ends
                self.gone = True
                self.interrupt()
                self._replies.put(("gone", ""))
                return
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if message.get("interrupt"):
                self.interrupt()
            elif isinstance(message.get("line"), str):
                self._replies.put(("line", message["line"]))
            elif message.get("eof"):
                self._replies.put(("eof", ""))

    def interrupt(self) -> None:
        """Ctrl-C in the client: the line being read, and the turn's task, end."""
        with self._state:
            self._interrupted = True
            if self._reading:
                self._replies.put(("interrupt", ""))
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed meanwhile
                loop.call_soon_threadsafe(task.cancel)

    def read_line(self, prompt: str, kind: str) -> str:
        with self._state:
            if self.gone:
                raise KeyboardInterrupt
            self._reading, self._interrupted = True, False
            while not self._replies.empty():  # a Ctrl-C that came after the last line
                self._replies.get_nowait()
        self.send({"read": {"prompt": prompt, "kind": kind}})
        try:
            what, line = self._replies.get()
        finally:
            with self._state:
                self._reading = False
        if what == "line":
            return line
        if what == "eof":
            raise EOFError
        raise KeyboardInterrupt

    def attach(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        with self._state:
            self._loop, self._task = loop, task
            cancel = self._interrupted
        if cancel:
            task.cancel()

    def detach(self) -> None:
        with self._state:
            self._loop = self._task = None

    def take_interrupt(self) -> bool:
        with self._state:
            interrupted, self._interrupted = self._interrupted, False
        return interrupted


class LinkStream(io.StringIO):
    """The turn's stdout or stderr: each write is a frame to the client, from any thread."""

    def __init__(self, link: TurnLink, name: str, *, tty: bool, encoding: str) -> None:
        super().__init__()
        self._link, self._name, self._tty, self._encoding = link, name, tty, encoding

    def write(self, text: str) -> int:
        self._link.write(self._name, text)
        return len(text)

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


class _Stdin(io.TextIOBase):
    """The engine's sys.stdin: in a turn, what the client read from its standard input for it
    (``ask -``) and whether that is a terminal; the real one everywhere else."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def isatty(self) -> bool:
        from vaultctx.cli import remote_terminal

        terminal = remote_terminal.current()
        return bool(self._real.isatty()) if terminal is None else terminal.stdin_isatty

    def read(self, size: int | None = -1) -> str:
        from vaultctx.cli import remote_terminal

        terminal = remote_terminal.current()
        if terminal is None:
            return str(self._real.read(size))
        text, terminal.stdin_text = terminal.stdin_text, ""
        return text

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        from vaultctx.cli import remote_terminal

        terminal = remote_terminal.current()
        if terminal is None:
            return str(self._real.readline(size))
        line, newline, rest = terminal.stdin_text.partition("\n")
        terminal.stdin_text = rest
        return line + newline


_stdin_lock = threading.Lock()


def _install_stdin() -> None:
    with _stdin_lock:
        if not isinstance(sys.stdin, _Stdin):
            sys.stdin = _Stdin(sys.stdin)


def run_turn(warm: WarmVault, request: Mapping[str, Any], link: TurnLink) -> dict[str, Any]:
    """The final frame of the turn: its exit code, or why it runs in the client instead."""
    from vaultctx.cli import remote_terminal, served
    from vaultctx.cli.forward import PROTOCOL

    try:
        argv, cwd, env, terminal = served._parse(warm.vault, request, TURNS)
    except served.DeclinedError as exc:
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    served._install_streams()
    _install_stdin()
    encoding = str(terminal.get("encoding") or "utf-8")
    out = LinkStream(link, "out", tty=bool(terminal.get("stdout")), encoding=encoding)
    err = LinkStream(link, "err", tty=bool(terminal.get("stderr")), encoding=encoding)
    link.cwd, link.stdin_isatty = cwd, bool(terminal.get("stdin"))
    given = request.get("stdin_text")
    link.stdin_text = given if isinstance(given, str) else ""
    ttys = {"stdout": out.isatty(), "stderr": err.isatty()}
    captured = served._captured.set((out, err, ttys, encoding))
    serving = remote_terminal.serving(link)
    try:
        with _turn_vaults(warm, cwd, env, terminal, (out, err)):
            code = _run(argv, link)
    except served.DeclinedError as exc:
        if link.wrote:
            return {"protocol": PROTOCOL, "exit": 1}
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    finally:
        remote_terminal.done_serving(serving)
        served._captured.reset(captured)
    return {"protocol": PROTOCOL, "exit": code}


@contextlib.contextmanager
def _turn_vaults(
    warm: WarmVault,
    cwd: str,
    env: dict[str, str],
    terminal: Mapping[str, Any],
    streams: tuple[LinkStream, LinkStream],
) -> Iterator[None]:
    """The command's ``open_vault`` gives a vault of its own, closed after the turn, whose
    searches run on the warm vault under its lock; its consoles write to the client."""
    from vaultctx.cli import served

    opened: list[Vault] = []

    def open_for_turn(given_vault: str | None, given_db: str | None) -> Vault:
        from vaultctx.api import Vault

        served.check_same_vault(warm.vault, given_vault, given_db, cwd, env, instead="run it here")
        vault = Vault(warm.vault.path, db=warm.vault.db_path)
        vault.search_elsewhere = _warm_search(warm)
        opened.append(vault)
        return vault

    consoles = {
        name: served._console(name, env, terminal, file=stream)
        for name, stream in zip(("stdout", "stderr"), streams, strict=True)
    }
    try:
        with served.request_scope(open_for_turn, consoles):
            yield
    finally:
        for vault in opened:
            vault.close()


def _warm_search(warm: WarmVault) -> Any:
    def search(request: SearchRequest) -> SearchResponse:
        with warm.lock, warm.vault.reporting_index_damage():
            return warm.vault.search(request)

    return search


_command_lock = threading.Lock()
_commands: list[Any] = []


def _command() -> Any:
    """The click command holding ``ask`` and ``chat``, built as ``cli.main`` builds it."""
    with _command_lock:
        if not _commands:
            import typer

            from vaultctx.cli import agent_cmds
            from vaultctx.cli.main import _new_app

            app = _new_app()
            agent_cmds.register(app)
            _commands.append(typer.main.get_command(app))
        return _commands[0]


def _run(argv: list[str], link: TurnLink) -> int:
    """Run the command as ``cli.main.run`` does, returning its exit code."""
    import typer
    from typer._click.exceptions import ClickException  # typer's usage errors

    from vaultctx.cli import common, served

    try:
        return served.exit_code(_command(), argv)
    except served.DeclinedError:
        raise
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    except ClickException as exc:
        if not link.wrote:  # a usage error: the client's typer shows it in its own style
            raise served.DeclinedError(exc.format_message(), "run it here") from exc
        exc.show()
        return exc.exit_code
    except KeyboardInterrupt:
        common.print_error("interrupted")
        return 130
    except Exception as exc:
        log.exception("turn failed")
        common.print_error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(set VAULTCTX_DEBUG=1 to see the traceback and please report it)"
        )
        return 1
