"""A turn of ``ask`` or ``chat`` run by the engine: the client's half of the conversation.

Unlike a forwarded search (one request, one answer), a turn talks both ways on its connection,
a JSON object per line each way. The engine sends the output as it is written (``out``,
``err``), asks for a line typed at the client when the command reads one (``read``: the chat's
prompt, a change's question), and ends with the exit code (``exit``), or, before it has run
anything, declines (``fallback``: the client runs the command itself). The client sends the
lines asked for (``line``, or ``eof`` for Ctrl-D), and ``interrupt`` for Ctrl-C, which the
engine turns into the in-process Ctrl-C of the command (the answer cancelled, exit 130).

Only the client's own environment decides whether the engine may run its turn: the engine
runs it only when the client's environment (apart from the variables that decide the display,
sent with the request) is the engine's own. What is compared is a digest: no value, and so no
key in the environment, is sent. A client that goes away (killed) closes the connection, and
the engine cancels its turn as for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
from collections.abc import Callable, Mapping
from typing import Any

from vaultctx.engine_link import client
from vaultctx.errors import VaultctxError

# Variables that differ from one terminal, shell or test to the next without changing what a
# turn reads or calls: the display's (sent with the request and applied to it), the shell's own,
# and the engine's switches.
_DISPLAY_NAMES = (
    "COLUMNS LINES TERM COLORTERM NO_COLOR FORCE_COLOR TTY_COMPATIBLE TTY_INTERACTIVE "
    "VAULT_PATH DB_PATH PWD OLDPWD SHLVL _ TERM_PROGRAM TERM_PROGRAM_VERSION TERM_SESSION_ID "
    "WINDOWID TMUX TMUX_PANE STY SSH_TTY SSH_CLIENT SSH_CONNECTION VTE_VERSION "
    "OPENBLAS_NUM_THREADS PROMPT_TOOLKIT_NO_CPR PYTEST_CURRENT_TEST "
    "VAULTCTX_VERBOSE VAULTCTX_ENGINE VAULTCTX_ENGINE_IDLE_SECONDS"
)
DISPLAY_ENV = frozenset(_DISPLAY_NAMES.split())
Reader = Callable[[str, str], str]


class TurnDeclinedError(VaultctxError):
    """The engine left this turn to the client before running any of it."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the engine left this turn to run here: {reason}", "nothing to do")


class EngineLostError(VaultctxError):
    """The engine went away in the middle of a turn: the turn may have made changes, so it is
    never sent again by itself."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"the engine stopped in the middle of this turn ({problem})",
            "changes it made before that are recorded: check `vaultctx ledger` before asking "
            "again (a new engine is started for the next command)",
        )


def environment_digest(environ: Mapping[str, str] | None = None) -> str:
    """A digest of the environment a turn depends on: every variable but ``DISPLAY_ENV``."""
    values = os.environ if environ is None else environ
    kept = sorted((k, v) for k, v in values.items() if k not in DISPLAY_ENV)
    return hashlib.sha256(json.dumps(kept).encode("utf-8", "surrogateescape")).hexdigest()


def run_turn(request: dict[str, Any], read: Reader) -> int:
    """Run ``request`` (as ``cli.forward`` builds one, with the command line) in the engine,
    printing its output as it comes; its exit code. Raises the client's errors when there is no
    engine to run it (the caller then runs it here), ``TurnDeclinedError`` when the engine
    declines it, and ``EngineLostError`` when the engine goes away mid-turn."""
    path = client.socket_path()
    connection = client.connect(path)
    with connection:
        reader = connection.makefile("rb")
        message = {
            "version": client.VERSION,
            "op": "turn",
            "request": request,
            "environment": environment_digest(),
        }
        try:
            client.send_line(connection, message, path)
            hello = client._line(reader, f"the engine at {path} said no hello")
            if hello.get("version") != client.VERSION:
                raise client.EngineVersionError(str(hello.get("version")))
            connection.settimeout(None)  # a model may think for minutes; Ctrl-C ends the wait
            return _Turn(connection, reader, read).run()
        finally:
            reader.close()


class _Turn:
    def __init__(self, connection: socket.socket, reader: Any, read: Reader) -> None:
        self.connection = connection
        self.reader = reader
        self.read = read
        self.wrote = False
        self.interrupted = False

    def run(self) -> int:
        while True:
            try:
                code = self._step()
            except KeyboardInterrupt:
                if self.interrupted:  # a second Ctrl-C: leave now; the engine sees us go
                    _interrupted()
                    return 130
                self.interrupted = True
                self._send({"interrupt": True})
                continue
            if code is not None:
                return code

    def _step(self) -> int | None:
        frame = self._next()
        if "out" in frame or "err" in frame:
            stream = sys.stdout if "out" in frame else sys.stderr
            text = frame.get("out", frame.get("err"))
            if isinstance(text, str):
                self.wrote = True
                stream.write(text)
                stream.flush()
        elif isinstance(frame.get("read"), dict):
            asked = frame["read"]
            self.interrupted = False
            self._send(_typed(self.read, str(asked.get("prompt", "")), str(asked.get("kind"))))
        elif isinstance(frame.get("fallback"), str) and not self.wrote:
            raise TurnDeclinedError(frame["fallback"])
        elif "exit" in frame:
            code = frame["exit"]
            valid = isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255
            return code if valid else 1
        return None

    def _next(self) -> dict[str, Any]:
        try:
            return client._line(self.reader, "the connection closed")
        except client.EngineBrokenError as exc:
            raise EngineLostError(exc.message) from exc

    def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the engine is gone: the next read says so
            self.connection.sendall(json.dumps(message).encode() + b"\n")


def _typed(read: Reader, prompt: str, kind: str) -> dict[str, Any]:
    try:
        return {"line": read(prompt, kind)}
    except EOFError:
        return {"eof": True}
    except KeyboardInterrupt:
        return {"interrupt": True}


def _interrupted() -> None:
    """What ``cli.main.run`` prints for a Ctrl-C."""
    try:
        shown = "\x1b[1;31merror:\x1b[0m" if sys.stderr.isatty() else "error:"
    except (AttributeError, ValueError):
        shown = "error:"
    print(f"{shown} interrupted", file=sys.stderr)
