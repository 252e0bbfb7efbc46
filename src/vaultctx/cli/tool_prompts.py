"""What the terminal shows of the assistant's tools: a line per tool call, and the question
asked before a change when ``confirm_changes`` is on.

The question shows the tool, its arguments (long texts cut) and, for a change to a note, the
unified diff of what it would write; it takes yes, no or always (no more questions in this
chat). Everything shown comes from the model, so control characters are dropped first. Only
someone at a terminal can answer: ``ask`` and ``chat`` fed from a pipe deny every change (the
session gets no confirmer; ``ask --allow-changes`` makes them instead) and name each denied
change after the answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO

from vaultctx.agent.confirm import ConfirmRequest, Decision, shortened_arguments
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.cli.answer_output import AnswerPrinter

ReadAnswer = Callable[[str], Awaitable[str]]
ANSWERS: dict[str, Decision] = {
    "y": "yes",
    "yes": "yes",
    "n": "no",
    "no": "no",
    "a": "always",
    "always": "always",
}
QUESTION = "Run it? [y]es / [n]o / [a]lways (stop asking in this chat): "


class TerminalConfirm:
    """The ``Confirm`` callback of an interactive chat. ``printer`` is the answer being
    streamed, paused while the question is on screen."""

    def __init__(self, read_answer: ReadAnswer | None = None, out: TextIO | None = None) -> None:
        from vaultctx.cli.remote_terminal import answer_reader

        self.read_answer = read_answer or answer_reader() or _prompt_toolkit_answer
        self.out = out
        self.printer: AnswerPrinter | None = None

    async def __call__(self, request: ConfirmRequest) -> Decision:
        out = self.out or sys.stderr
        with _paused(self.printer):
            print(describe_request(request), file=out, flush=True)
            while True:
                try:
                    reply = (await self.read_answer(QUESTION)).strip().lower()
                except EOFError:
                    return "no"
                if reply in ANSWERS:
                    return ANSWERS[reply]
                print("answer y, n or a", file=out, flush=True)


def describe_request(request: ConfirmRequest) -> str:
    arguments = json.dumps(shortened_arguments(request.args), ensure_ascii=False, indent=2)
    lines = [f"The assistant wants to run {request.tool} with:", arguments]
    if request.diff:
        lines.append(request.diff.rstrip("\n"))
    return printable("\n".join(lines))


class ToolCallPrinter:
    """One line on stderr per tool call, ``· tool args → result``, below the answer so far."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self.printer: AnswerPrinter | None = None

    def __call__(self, call: dict[str, Any]) -> None:
        args = call.get("args", {})
        shown = ", ".join(f"{key}={value}" for key, value in args.items() if isinstance(value, str))
        shown = shown if len(shown) <= 80 else shown[:79] + "…"
        with _paused(self.printer):
            line = f"· {call['name']} {shown} → {call.get('result_summary', '')}"
            print(printable(line), file=self.out or sys.stderr, flush=True)


def _paused(printer: AnswerPrinter | None) -> Any:
    import contextlib

    return printer.paused() if printer is not None else contextlib.nullcontext()


async def _prompt_toolkit_answer(question: str) -> str:
    from prompt_toolkit import PromptSession

    session: PromptSession[str] = PromptSession()
    return await session.prompt_async(question)
