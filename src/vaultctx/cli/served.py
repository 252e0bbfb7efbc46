"""A CLI command run inside the server for a ``vaultctx`` process (``cli.forward``).

The server parses the command line with the same typer app and runs the same command function
the process would run; only three things differ, all set for this request alone: ``open_vault``
returns the server's open vault (after checking it is the one the command names), the rich
consoles are made for the caller's terminal (its width, colours, whether it is a terminal at
all), and ``print`` writes into buffers sent back. So the output is the in-process output by
construction, not a second rendering of the results.

What the server cannot reproduce it declines (``fallback``), and the process then runs the
command itself: usage errors and help (typer prints them with its own console), a command
naming another vault or index, anything unexpected.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultctx.cli import common
from vaultctx.cli.forward import CLIENT_ENV, ENGINE_FORWARDED, FORWARDED, PROTOCOL, declined_option
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from rich.console import Console

    from vaultctx.api import Vault

MAX_ARGUMENTS = 200
MAX_ARGUMENT_CHARS = 16 * 1024


class DeclinedError(VaultctxError):
    """The server will not run this command for the caller; the caller runs it itself."""


_captured: ContextVar[tuple[io.StringIO, io.StringIO, Mapping[str, bool], str] | None] = ContextVar(
    "vaultctx_served_output", default=None
)
_install_lock = threading.Lock()


class _RequestStream(io.TextIOBase):
    """sys.stdout or sys.stderr of the server: a request's buffer inside a served command, the
    real stream everywhere else (other threads, the server's own logging)."""

    def __init__(self, real: Any, name: str) -> None:
        self._real = real
        self._name = name

    def _target(self) -> Any:
        captured = _captured.get()
        if captured is None:
            return self._real
        return captured[0] if self._name == "stdout" else captured[1]

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        captured = _captured.get()
        if captured is None:
            return bool(self._real.isatty())
        return captured[2][self._name]

    def fileno(self) -> int:
        if _captured.get() is not None:
            raise io.UnsupportedOperation("a served command has no file descriptor")
        return int(self._real.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        captured = _captured.get()
        return captured[3] if captured is not None else str(self._real.encoding)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _Streamed(io.StringIO):
    """A request's stderr whose text is passed on as it is written, not kept."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        super().__init__()
        self._sink = sink

    def write(self, text: str) -> int:
        self._sink(text)
        return len(text)


def _install_streams() -> None:
    with _install_lock:
        if not isinstance(sys.stdout, _RequestStream):
            sys.stdout = _RequestStream(sys.stdout, "stdout")
        if not isinstance(sys.stderr, _RequestStream):
            sys.stderr = _RequestStream(sys.stderr, "stderr")


_commands: dict[str, Any] = {}


def _command(name: str) -> Any:
    """The click command for ``vaultctx <name> ...``, built once per server from the families
    that define the forwarded commands (help and usage errors, where the rest of the app would
    show, are declined)."""
    if name not in _commands:
        import typer

        from vaultctx.cli import hook_cmds, index_cmds, links_cmds, search_cmds

        app = typer.Typer(name="vaultctx", add_completion=False, pretty_exceptions_enable=False)

        @app.callback()
        def group() -> None:
            """A group, so ``vaultctx search ...`` parses as in the whole CLI."""

        for family in (search_cmds, links_cmds, index_cmds, hook_cmds):
            family.register(app)
        command = typer.main.get_command(app)
        for forwarded in FORWARDED | ENGINE_FORWARDED:
            _commands[forwarded] = command
    return _commands[name]


def prepare() -> None:
    """Build the forwarded commands ahead of the first request (typer and the command families
    are imported then: a quarter of a second the first caller would otherwise wait)."""
    _command(next(iter(FORWARDED)))


def run_request(
    vault: Vault,
    request: Mapping[str, Any],
    *,
    stream: Callable[[str], None] | None = None,
    allowed: frozenset[str] = FORWARDED,
) -> dict[str, Any]:
    """The answer to one forwarded command line: its output and exit code, or a reason to
    decline. ``vault`` is the server's, used under the server's lock. A request with
    ``search`` is one search of ``vaultctx ask`` or ``chat`` (``cli.remote_search``).

    ``allowed`` are the commands run (the engine runs ``index`` too); with ``stream`` the
    command's stderr goes there as it is written (``index``'s progress) instead of coming back
    with the answer."""
    if "search" in request:
        return _search(vault, request)
    try:
        argv, cwd, env, terminal = _parse(vault, request, allowed)
    except DeclinedError as exc:
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    stdin = request.get("stdin")
    if stdin is not None and not isinstance(stdin, str):
        return {"protocol": PROTOCOL, "fallback": "stdin is not text"}
    _install_streams()
    out, err = io.StringIO(), (io.StringIO() if stream is None else _Streamed(stream))
    ttys = {"stdout": bool(terminal.get("stdout")), "stderr": bool(terminal.get("stderr"))}
    encoding = str(terminal.get("encoding") or "utf-8")
    token = _captured.set((out, err, ttys, encoding))
    fed = common.served_stdin.set(stdin)
    try:
        with _serving(vault, cwd, env, terminal):
            code = _run(argv)
    except DeclinedError as exc:
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    finally:
        common.served_stdin.reset(fed)
        _captured.reset(token)
    return {"protocol": PROTOCOL, "exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


def _search(vault: Vault, request: Mapping[str, Any]) -> dict[str, Any]:
    """The response as JSON; any doubt (another index, an invalid or failing search) declines,
    and the caller searches in-process, where the same error is reported in its own words."""
    from vaultctx.search.request_json import request_from_json

    try:
        _check_served(vault, request)
        response = vault.search(request_from_json(request["search"]))
    except VaultctxError as exc:
        return {"protocol": PROTOCOL, "fallback": exc.one_line()}
    return {"protocol": PROTOCOL, "search": response.as_dict()}


def _check_served(vault: Vault, request: Mapping[str, Any]) -> None:
    if request.get("protocol") != PROTOCOL:
        raise DeclinedError("another protocol version", f"this server speaks {PROTOCOL}")
    if request.get("db") != served_name(vault.db_path) or request.get("vault") != str(vault.path):
        raise DeclinedError("this server serves another index", f"it serves {vault.db_path}")


def served_name(location: IndexLocation) -> str:
    """How a forwarded request names ``location`` (``cli.forward``): the file's path, or the
    PostgreSQL URL as given, which carries no password (one that might is never forwarded)."""
    return location.url if isinstance(location, PostgresLocation) else str(location)


def _parse(
    vault: Vault, request: Mapping[str, Any], allowed: frozenset[str]
) -> tuple[list[str], str, dict[str, str], Mapping[str, Any]]:
    _check_served(vault, request)
    argv, cwd, env = request.get("argv"), request.get("cwd"), request.get("env")
    terminal = request.get("terminal")
    if not isinstance(argv, list) or not argv or len(argv) > MAX_ARGUMENTS:
        raise DeclinedError("no command line", "send argv")
    if not all(isinstance(arg, str) and len(arg) <= MAX_ARGUMENT_CHARS for arg in argv):
        raise DeclinedError("a malformed command line", "send argv as strings")
    if argv[0] not in allowed or declined_option(argv):
        raise DeclinedError(f"{argv[0]!r} is not run by the server", "run it in-process")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise DeclinedError("no working directory", "send cwd")
    if not isinstance(env, dict) or not isinstance(terminal, dict):
        raise DeclinedError("no environment", "send env and terminal")
    clean_env = {k: v for k, v in env.items() if k in CLIENT_ENV and isinstance(v, str)}
    return list(argv), cwd, clean_env, terminal


@contextmanager
def _serving(
    vault: Vault, cwd: str, env: dict[str, str], terminal: Mapping[str, Any]
) -> Iterator[None]:
    def served(given_vault: str | None, given_db: str | None) -> Vault:
        check_same_vault(vault, given_vault, given_db, cwd, env, instead="run it in-process")
        return vault

    consoles = {name: _console(name, env, terminal) for name in ("stdout", "stderr")}
    with request_scope(served, consoles):
        yield


def check_same_vault(
    vault: Vault,
    given_vault: str | None,
    given_db: str | None,
    cwd: str,
    env: Mapping[str, str],
    *,
    instead: str,
) -> None:
    """Decline a command that, run by the caller, would open another vault or index than the
    one served: a server answers only for its own (``instead`` says where to run it)."""
    if _resolve_as_caller(vault, given_vault, given_db, cwd, env) != (vault.path, vault.db_path):
        raise DeclinedError("the command names another vault or index", instead)


@contextmanager
def request_scope(
    open_vault: Callable[[str | None, str | None], Vault], consoles: dict[str, Console]
) -> Iterator[None]:
    """While the command runs, its ``open_vault`` and its consoles are the request's, not the
    server's own (context variables, so concurrent requests never see each other's)."""
    vaults = common.served_vault.set(open_vault)
    made = common.request_consoles.set(consoles)
    try:
        yield
    finally:
        common.request_consoles.reset(made)
        common.served_vault.reset(vaults)


def _resolve_as_caller(
    vault: Vault, given_vault: str | None, given_db: str | None, cwd: str, env: Mapping[str, str]
) -> tuple[Path, IndexLocation] | None:
    """The vault and index the caller's process would open, with its working directory and
    environment; the settings files are the server's (it read them at start)."""
    from vaultctx.config import check_db_location, default_db_path
    from vaultctx.db_location import index_location, is_postgres_url

    def absolute(value: str) -> Path:
        return (Path(cwd) / Path(value).expanduser()).resolve()

    vault_value = given_vault if given_vault is not None else env.get("VAULT_PATH")
    if not vault_value or not vault_value.strip():
        return None
    vault_path = absolute(vault_value)
    db_value = given_db if given_db is not None else env.get("DB_PATH")
    if db_value and is_postgres_url(db_value):
        return vault_path, index_location(db_value, vault_path)
    db_path = absolute(db_value) if db_value else default_db_path(vault_path)
    try:
        check_db_location(vault_path, db_path)
    except VaultctxError:
        return None
    return vault_path, db_path


def _console(
    name: str, env: Mapping[str, str], terminal: Mapping[str, Any], file: Any = None
) -> Console:
    """A console as the caller's process would make it: its environment decides colours and
    terminal rules, its stream (``_RequestStream``, or ``file``) answers isatty, and its measured
    size stands in for rich's own look at the terminal. A ``file`` is written from any thread
    (a live answer refreshes from its own)."""
    from rich.console import Console

    options = common.console_options(name)
    if file is not None:
        options.pop("stderr", None)
        options["file"] = file
    made = Console(**options, _environ=dict(env))
    if not made.is_dumb_terminal:
        width, height = _measured(terminal.get("size"))
        columns, lines = env.get("COLUMNS", ""), env.get("LINES", "")
        width = int(columns) if columns.isdigit() else width
        height = int(lines) if lines.isdigit() else height
        made.size = (width or 80, height or 25)
    return made


def _measured(size: Any) -> tuple[int | None, int | None]:
    valid = isinstance(size, list) and len(size) == 2
    if valid and all(isinstance(n, int) and 0 <= n <= 10_000 for n in size):
        return size[0], size[1]
    return None, None


def _run(argv: list[str]) -> int:
    """Run the command as ``main.run`` does, returning its exit code."""
    try:
        return exit_code(_command(argv[0]), argv)
    except DeclinedError:
        raise
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # usage errors, help, and the unexpected: the caller runs it
        raise DeclinedError(f"{type(exc).__name__}: {exc}", "run it in-process") from exc


def exit_code(command: Any, argv: list[str]) -> int:
    """Run the click ``command`` on ``argv`` as ``main.run`` does: a ``VaultctxError`` is printed
    (exit 2), ``typer.Exit`` gives its code; a ``DeclinedError`` and anything else propagate for
    the caller to decide (the server hands it back, the engine reports it)."""
    import typer

    try:
        result = command.main(args=argv, prog_name="vaultctx", standalone_mode=False)
    except DeclinedError:
        raise
    except VaultctxError as exc:
        common.print_error(exc.one_line())
        return 2
    except typer.Exit as exc:
        return int(exc.exit_code)
    return result if isinstance(result, int) else 0


RequestRunner = Callable[["Vault", Mapping[str, Any]], dict[str, Any]]
