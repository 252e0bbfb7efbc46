"""The terminal of the ``vaultctx`` process a turn of ``ask`` or ``chat`` runs for, when it runs in
the user's engine (engine/turns.py) rather than in that process.

The commands themselves are unchanged; the few places where they meet the user's terminal ask
this module first: a line typed at the chat's prompt and the answer to a change's question come
from the client (``line_reader``, ``answer_reader``), a file named on the command line is found
from the client's working directory (``client_path``), and Ctrl-C in the client reaches the turn
(``run``, ``run_on``): it cancels the turn's task, which surfaces as the ``KeyboardInterrupt`` a
Ctrl-C raises in-process, so everything after it (the partial answer, exit 130, the chat's
"stopped" note) is the in-process code's own. Outside the engine every function here is the
plain in-process behaviour.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, TypeVar

Result = TypeVar("Result")


class ClientTerminal(Protocol):
    """What the engine knows of, and can ask of, the client's terminal for one request."""

    cwd: str
    stdin_isatty: bool
    stdin_text: str

    def read_line(self, prompt: str, kind: str) -> str:
        """A line typed at the client: ``kind`` "line" (the chat's prompt) or "answer" (a
        change's question). Raises EOFError (Ctrl-D) or KeyboardInterrupt (Ctrl-C, or the
        client gone)."""

    def attach(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        """The task Ctrl-C cancels from now on (at once if Ctrl-C came already)."""

    def detach(self) -> None: ...

    def take_interrupt(self) -> bool:
        """Whether a Ctrl-C came (and forget it)."""


_terminal: ContextVar[ClientTerminal | None] = ContextVar("vaultctx_client_terminal", default=None)


def current() -> ClientTerminal | None:
    return _terminal.get()


def serving(terminal: ClientTerminal) -> Any:
    """Set ``terminal`` for this context; the token resets it (``_terminal.reset``)."""
    return _terminal.set(terminal)


def done_serving(token: Any) -> None:
    _terminal.reset(token)


def line_reader() -> Callable[[str], str] | None:
    terminal = _terminal.get()
    if terminal is None:
        return None
    return lambda prompt: terminal.read_line(prompt, "line")


def answer_reader() -> Callable[[str], Awaitable[str]] | None:
    """An async reader of the answer to a change's question, typed at the client."""
    terminal = _terminal.get()
    if terminal is None:
        return None

    async def read(question: str) -> str:
        return await asyncio.to_thread(terminal.read_line, question, "answer")

    return read


def client_path(path: Path) -> Path:
    """``path`` as the client meant it: relative to its working directory, not the engine's."""
    terminal = _terminal.get()
    if terminal is None or path.is_absolute():
        return path
    return Path(terminal.cwd) / path


def run(coroutine: Coroutine[Any, Any, Result]) -> Result:
    """``asyncio.run``, interrupted by the client's Ctrl-C as by a local one."""
    return run_on(asyncio.run, coroutine)


def run_on(
    runner: Callable[[Coroutine[Any, Any, Result]], Result],
    coroutine: Coroutine[Any, Any, Result],
) -> Result:
    """``runner(coroutine)`` (``asyncio.run`` or a chat's ``Runner.run``); in the engine, a
    Ctrl-C of the client cancels the coroutine's task and raises ``KeyboardInterrupt`` here, as
    a Ctrl-C does in-process (``asyncio.Runner`` cancels the task on SIGINT the same way)."""
    terminal = _terminal.get()
    if terminal is None:
        return runner(coroutine)

    async def watched() -> Result:
        current_task = asyncio.current_task()
        assert current_task is not None
        terminal.attach(asyncio.get_running_loop(), current_task)
        try:
            return await coroutine
        finally:
            terminal.detach()

    try:
        return runner(watched())
    except asyncio.CancelledError:
        if terminal.take_interrupt():
            raise KeyboardInterrupt from None
        raise
