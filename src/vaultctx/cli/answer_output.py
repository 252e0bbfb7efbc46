"""How an answer reaches the screen, for ``ask`` and ``chat`` alike: streamed as it arrives (live
markdown on a terminal, plain text in a pipe), control characters dropped, then the citations that
did not resolve and any failure on stderr."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vaultctx.agent.session import ChatSession, Turn


CHAT_HINT = "chat at a terminal to confirm each one"
ASK_HINT = (
    "run the question again with --allow-changes to make them, or at a terminal to confirm each"
)


def denied_changes(turn: Turn) -> list[dict[str, str]]:
    """The changes the turn's model asked for and was denied: tool and target (a path)."""
    from vaultctx.agent.confirm import change_target
    from vaultctx.agent.tool_results import is_denied

    return [
        {"tool": call["name"], "target": change_target(call["name"], call.get("args", {}))}
        for call in turn.tool_calls
        if is_denied(call["result_summary"])
    ]


class AnswerPrinter:
    """Streams text: plain to a pipe, live-rendered markdown on a terminal."""

    def __init__(self, *, render: bool) -> None:
        self.text: list[str] = []
        self._live: Any = None
        self._shown_from = 0  # the live view shows text[_shown_from:]; what came before stays put
        if render:
            self._live = self._new_live()

    @staticmethod
    def _new_live() -> Any:
        from rich.live import Live

        from vaultctx.cli.common import console, request_consoles

        # Live's redirection replaces sys.stdout for the whole process: in a server, where
        # other threads print for other requests, it would send their output to this answer.
        alone = request_consoles.get() is None
        return Live(
            console=console("stdout"),
            refresh_per_second=8,
            transient=False,
            redirect_stdout=alone,
            redirect_stderr=alone,
        )

    def __enter__(self) -> AnswerPrinter:
        if self._live is not None:
            self._live.__enter__()
        return self

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The answer so far left on screen, so a question or a notice can be printed below
        it; the rest of the answer streams on after."""
        if self._live is not None:
            self._live.__exit__(None, None, None)
        sys.stdout.flush()
        try:
            yield
        finally:
            if self._live is not None:
                self._shown_from = len(self.text)
                self._live = self._new_live()
                self._live.__enter__()

    def __call__(self, delta: str) -> None:
        from vaultctx.text.terminal import printable

        delta = printable(delta)
        self.text.append(delta)
        if self._live is None:
            sys.stdout.write(delta)
            sys.stdout.flush()
        else:
            from rich.markdown import Markdown

            # A link's target in plain view, never hidden behind its text: an answer drawn from
            # a clipped page could otherwise show "the docs" and send a click anywhere.
            shown = "".join(self.text[self._shown_from :])
            self._live.update(Markdown(shown, hyperlinks=False))

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
        elif self.text and not "".join(self.text).endswith("\n"):
            sys.stdout.write("\n")
            sys.stdout.flush()


def report_turn(turn: Turn, session: ChatSession, *, no_terminal_hint: str = CHAT_HINT) -> None:
    """After the answer: unresolved citations, an early end of the tool loop, the changes denied
    for want of someone to ask (each named, with ``no_terminal_hint`` saying how to make them),
    a failed save and any failure, on stderr."""
    from vaultctx.agent.wording import say
    from vaultctx.text.terminal import printable

    language = session.settings.user_language()
    for item in turn.unresolved:
        line = say(
            language,
            "unresolved citation: {citation} ({message})",
            citation=item["citation"],
            message=item["message"],
        )
        print(line, file=sys.stderr)
    if turn.stopped is not None:
        print(say(language, "stopped: {why}", why=turn.stopped), file=sys.stderr)
    denied = denied_changes(turn)
    if denied and session.confirm_policy.ask is None:
        print(
            f"note: {len(denied)} change(s) were denied, as there is no terminal to confirm them "
            f"on; nothing was written for them ({no_terminal_hint}):",
            file=sys.stderr,
        )
        for change in denied:
            print(printable(f"  denied: {change['tool']} {change['target']}"), file=sys.stderr)
    if session.save_error is not None:
        print(
            f"note: the conversation was not saved: {session.save_error.one_line()}",
            file=sys.stderr,
        )
    if turn.error is not None:
        from vaultctx.cli.common import print_error

        kept = " (the part that arrived is shown above)" if turn.partial else ""
        print_error(turn.error.one_line() + kept)
