"""``vaultctx ask`` and ``chat`` run by the user's engine, which has the models, the agent's
libraries and the index loaded: the process that the user started stays a thin front end.

Like ``cli.forward`` (whose request this is, plus the client's standard input for ``ask -``),
this runs before typer is imported, and only the standard library is loaded until the engine has
answered. What is typed at the chat's prompt, or at a change's question, is read here, as the
in-process command reads it (``chat_repl``'s line reader, prompt_toolkit at a terminal), and
sent; Ctrl-C here cancels the turn there (engine_link/turn_link.py).

No engine: the command runs in-process and starts one for the next, after its answer (as a
broken engine's replacement, ``cli.forward.start_engine_if_wanted``). An engine that declines the
turn before running it (another environment, an option it does not run): in-process, at once. An
engine that goes away mid-turn: said once, exit 2, and the turn is not sent again, since it may
have changed notes before it stopped.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

from vaultctx.cli.forward import (
    PROTOCOL,
    _isatty,
    declined_option,
    located_request,
    note,
    replace_after_answer,
    restart_after_answer,
    start_after_answer,
)
from vaultctx.errors import VaultctxError

TURNS = frozenset({"ask", "chat"})


def forward_turn(argv: list[str]) -> int | None:
    """Run ``argv`` (without the program name) in the engine and return its exit code; None
    when it must run in-process."""
    if not argv or argv[0] not in TURNS or os.name == "nt" or declined_option(argv):
        return None
    from vaultctx.engine_link import client

    if not client.enabled():
        return None
    located = located_request(argv)
    if located is None:
        return None
    request, vault, db = located
    request.update(
        protocol=PROTOCOL,
        vault=str(vault),
        db=str(db),
        terminal={**request["terminal"], "stdin": _isatty(sys.stdin)},
        stdin_text=_question_from_stdin(argv),
    )
    return _run(request, (vault, db))


def _run(request: dict[str, Any], located: Any) -> int | None:
    from vaultctx.engine_link import client, turn_link

    try:
        code = turn_link.run_turn(request, _ClientReader())
    except KeyboardInterrupt:  # before the turn began: closing the connection ends it there
        _error("interrupted")
        return 130
    except client.EngineNotRunningError:
        note("no engine yet: running in-process; starting one after it")
        start_after_answer(located)
        _in_process(request)
        return None
    except client.EngineVersionError as exc:
        note(exc.one_line())
        restart_after_answer(located)
        _in_process(request)
        return None
    except turn_link.TurnDeclinedError as exc:
        note(exc.message)
        _in_process(request)
        return None
    except turn_link.EngineLostError as exc:
        _error(exc.one_line())
        replace_after_answer(located)
        return 2
    except client.EngineBrokenError as exc:  # no hello: nothing of the turn has run
        print(f"vaultctx: {exc.one_line()}", file=sys.stderr)
        replace_after_answer(located)
        _in_process(request)
        return None
    except VaultctxError as exc:  # the runtime folder refused: said every time, as it lasts
        print(f"vaultctx: {exc.one_line()}", file=sys.stderr)
        _in_process(request)
        return None
    note("answered by the engine")
    return code


def _question_from_stdin(argv: list[str]) -> str | None:
    """``ask -`` reads the question from standard input: read here, sent with the request."""
    if argv[0] != "ask" or "-" not in argv[1:]:
        return None
    return sys.stdin.read()


def _in_process(request: dict[str, Any]) -> None:
    """None (the command runs here); standard input read for the engine is given back."""
    text = request.get("stdin_text")
    if isinstance(text, str):
        sys.stdin = _Replayed(text, isatty=bool(request["terminal"]["stdin"]))
    return None


class _Replayed(io.StringIO):
    def __init__(self, text: str, *, isatty: bool) -> None:
        super().__init__(text)
        self._isatty = isatty

    def isatty(self) -> bool:
        return self._isatty


class _ClientReader:
    """Lines typed here for the engine's command, read as that command reads them in-process."""

    def __init__(self) -> None:
        self._line: Any = None

    def __call__(self, prompt: str, kind: str) -> str:
        if kind == "line":
            if self._line is None:
                from vaultctx.cli.chat_repl import _line_reader

                self._line = _line_reader()
            return str(self._line(prompt))
        if _isatty(sys.stdin):
            from prompt_toolkit import PromptSession

            answer: str = PromptSession().prompt(prompt)
            return answer
        print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line


def _error(message: str) -> None:
    shown = "\x1b[1;31merror:\x1b[0m" if _isatty(sys.stderr) else "error:"
    print(f"{shown} {message}", file=sys.stderr)
