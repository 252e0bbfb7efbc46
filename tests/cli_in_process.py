"""``vaultctx ARGS`` run inside the test process, answering as ``subprocess.run`` would.

Why: a ``python -m vaultctx`` child pays 1-2 s of imports on a loaded machine, and hundreds of
tests only check what a command prints, its exit code and what it wrote to the vault and the
ledger. Those run the same ``cli.main.run`` the console script ends in, with the test's
environment, working folder, stdin and argv applied for the call and restored after it, so the
suite's time goes to the commands and not to importing them again. The embedder and the other
loaded models stay loaded between calls; that is the point.

Not for a test that needs a process of its own: signals, a killed or timed-out run, the engine,
the forwarding entry point (``cli.entry``), a pty, fd-level stdin or stdout, threads or children
left running, or an exit without teardown. Each command family keeps true subprocess tests, so
the real entry point is still exercised (tests/e2e, tests/test_startup.py and the ``subprocess``
callers left in each folder).

typer turns the app into a click command on every call, which was ~90 % of an in-process call
(0.77 of 0.87 s, profiled). Here each family's click command is built on its first call in the
test process and kept, as the engine keeps its own (``cli.served._command``,
``engine.turns._command``); each call still parses its own command line.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import keyring.core as keyring_core
import platformdirs
import typer

from vaultctx.cli import common
from vaultctx.cli import main as cli_main
from vaultctx.cli.entry import without_no_engine

# A child process finds its folders from its environment: fixtures that point this process's
# ``platformdirs`` elsewhere (tests/agent/conftest.py) must not reach the command.
_FOLDER_FUNCTIONS = ("user_data_dir", "user_config_dir", "user_state_dir", "user_cache_dir")
_GENUINE = {name: getattr(platformdirs, name) for name in _FOLDER_FUNCTIONS}
# What ``python -m vaultctx`` calls itself in usage lines (click names a ``-m`` run this way).
PROGRAM = "python -m vaultctx"
# The exit status of a command stopped by Ctrl-C (``cli.main.run``).
INTERRUPTED = 130


def run_vaultctx(
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run([python, -m, vaultctx, *args], capture_output=True, text=True, ...)``,
    run here: ``env`` replaces the whole environment for the call (as a child's would), stdin
    reads ``input`` (empty, not a terminal, when None, as ``stdin=DEVNULL``)."""
    arguments = [str(arg) for arg in args]
    kept = without_no_engine(arguments)
    environment = dict(os.environ if env is None else env)
    if kept != arguments:
        environment["VAULTCTX_ENGINE"] = "off"
    stdout = _stream("strict")
    stderr = _stream("backslashreplace")
    code: int = 0
    with _applied(environment, cwd, [PROGRAM, *kept], input or "", stdout, stderr), _built_once():
        from vaultctx.cli.main import run

        try:
            run(forwarding=False)
        except SystemExit as done:
            code = _exit_code(done, stderr)
    if code == INTERRUPTED and _text(stderr).endswith("error: interrupted\n"):
        # Ctrl-C meant for pytest: the command's own handler turned it into exit 130.
        raise KeyboardInterrupt
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "vaultctx", *arguments], code, _text(stdout), _text(stderr)
    )


class _Built:
    """A typer app's click command, built once: called as ``cli.main.run`` calls the app (click
    reads ``sys.argv``). typer's own ``__call__`` adds only an excepthook and a note on the
    exception for it, which ``run`` never lets reach."""

    def __init__(self, app: typer.Typer) -> None:
        self.command: Any = typer.main.get_command(app)

    def __call__(self) -> Any:
        return self.command()


_BUILT: dict[str, _Built] = {}
_APP_FOR = cli_main.app_for


@contextmanager
def _built_once() -> Iterator[None]:
    """``cli.main.app_for`` answering with each family's command built on its first call (the
    whole CLI, or a hot command's family alone, as ``app_for`` chooses). A test that replaced
    ``app_for`` keeps its own."""
    if cli_main.app_for is not _APP_FOR:
        yield
        return

    def built(argv: list[str]) -> _Built:
        command = argv[1] if len(argv) > 1 else ""
        family = cli_main.HOT_COMMANDS.get(command, "the whole CLI")
        if family not in _BUILT:
            _BUILT[family] = _Built(_APP_FOR(argv))
        return _BUILT[family]

    cli_main.app_for = built  # type: ignore[assignment]
    try:
        yield
    finally:
        cli_main.app_for = _APP_FOR


def _stream(errors: str) -> io.TextIOWrapper:
    """A pipe-like text stream: an encoding, no terminal, no file descriptor."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    """What the child's pipe would read as text (universal newlines, as ``text=True``)."""
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _exit_code(done: SystemExit, stderr: io.TextIOWrapper) -> int:
    """The process's exit status for ``sys.exit(done.code)``: a message goes to stderr, exit 1."""
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    stderr.write(f"{done.code}\n")
    return 1


@contextmanager
def _applied(
    environment: dict[str, str],
    cwd: str | Path | None,
    argv: list[str],
    stdin: str,
    stdout: io.TextIOWrapper,
    stderr: io.TextIOWrapper,
) -> Iterator[None]:
    """The process-wide state a child would have had its own copy of, put back afterwards:
    environment, folder, argv, the three streams, the CLI's cached rich consoles (made for the
    streams of the run that first printed), ``platformdirs``' own folder functions and the
    keyring backend ``keyring`` chose once (a child chooses from its own
    ``PYTHON_KEYRING_BACKEND``)."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved = (sys.argv, sys.stdin, sys.stdout, sys.stderr)
    saved_consoles = dict(common._consoles)
    saved_folders = {name: getattr(platformdirs, name) for name in _FOLDER_FUNCTIONS}
    saved_keyring = keyring_core._keyring_backend
    keyring_core._keyring_backend = None
    os.environ.clear()
    os.environ.update(environment)
    common._consoles.clear()
    for name, genuine in _GENUINE.items():
        setattr(platformdirs, name, genuine)
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        sys.stdin = io.StringIO(stdin)
        sys.stdout, sys.stderr = stdout, stderr
        yield
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        common._consoles.clear()
        common._consoles.update(saved_consoles)
        for name, was in saved_folders.items():
            setattr(platformdirs, name, was)
        keyring_core._keyring_backend = saved_keyring
