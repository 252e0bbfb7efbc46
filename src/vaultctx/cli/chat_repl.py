"""The interactive loop of ``vaultctx chat``: a prompt with history, slash commands, streaming.

One event loop serves the whole chat (``asyncio.Runner``), so the backend's HTTP connections
stay open between questions, and Ctrl-C during an answer cancels that answer alone: the part that
arrived stays on screen and out of the history; a second Ctrl-C, at the prompt, leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from vaultctx.cli import remote_terminal
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.agent.attachments import Attachment
    from vaultctx.agent.session import ChatSession, Turn

HELP = """\
/effort LEVEL   reasoning effort (minimal, low, medium, high, xhigh, max)
/attach PATH    send a file with the next question
/note PATH      send a note of the vault (vault-relative path) with the next question
/model NAME     switch model
/mcp            the external MCP servers and their tools
/web [on|off]   search the web too (Gemini's Google Search, or an MCP fetch/exa/brave tool)
/regen          answer the last question again (the earlier answer stays saved)
/save           save the conversation now and show its id
/harvest        save it and turn it into a note of its conclusions (Second Brain)
/new            start a new conversation
/help           this list
/quit           leave (or Ctrl-D)"""


class ChatRepl:
    def __init__(self, session: ChatSession, attachments: list[Attachment]) -> None:
        from vaultctx.cli.tool_prompts import TerminalConfirm, ToolCallPrinter

        self.session = session
        self.pending = list(attachments)
        self.runner: Runner | None = None
        self.interrupted_once = False
        self.pending_regen = False
        self.tool_lines = ToolCallPrinter()
        session.on_tool_call = self.tool_lines
        # Only someone at a terminal can confirm a change; from a pipe every change is denied.
        self.confirm = TerminalConfirm() if sys.stdin.isatty() else None
        session.confirm_policy.ask = self.confirm

    def say(self, english: str, **values: object) -> str:
        """A fixed line of the chat in the user's language (agent/wording.py)."""
        from vaultctx.agent.wording import say

        return say(self.session.settings.user_language(), english, **values)

    def prompt_line(self) -> str:
        from vaultctx.agent.effort import allowed_efforts, clamp_effort

        backend = self.session.backend
        effort = clamp_effort(
            self.session.effort, allowed_efforts(backend.name, backend.model_name)
        )
        shown = f"{backend.model_name} · {effort}" if effort else backend.model_name
        files = f" +{len(self.pending)} file(s)" if self.pending else ""
        return f"[{shown}{files}] > "

    def run(self) -> None:
        read_line = _line_reader()
        banner = "vaultctx chat: /help for commands, Ctrl-D to leave"
        print(self.say(banner), file=sys.stderr)
        with _runner() as runner, self._mcp_servers(runner):
            self.runner = runner
            while True:
                try:
                    line = read_line(self.prompt_line()).strip()
                except (KeyboardInterrupt, EOFError):
                    return
                if not line:
                    continue
                try:
                    if line.startswith("/"):
                        if self.command(line) == "quit":
                            return
                        if self.pending_regen:
                            self.pending_regen = False
                            self.answer(runner, "", regenerate=True)
                        continue
                    self.answer(runner, line)
                except VaultctxError as exc:
                    from vaultctx.cli.common import print_error

                    print_error(exc.one_line())

    @contextlib.contextmanager
    def _mcp_servers(self, runner: Runner) -> Iterator[None]:
        """The external MCP servers run for the whole chat, on the chat's own event loop."""
        mcp = self.session.mcp
        if mcp is None:
            yield
            return
        runner.run(mcp.start())
        for server in mcp.status():
            if server.state == "failed":
                print(
                    printable(f"note: MCP server {server.name} did not start: {server.last_error}"),
                    file=sys.stderr,
                )
        try:
            yield
        finally:
            runner.run(mcp.stop())

    def answer(self, runner: Runner, question: str, *, regenerate: bool = False) -> None:
        from vaultctx.cli.answer_output import AnswerPrinter, report_turn
        from vaultctx.organize.retrospective import is_retrospective_request

        if is_retrospective_request(question):
            from vaultctx.cli.chat_writers import retrospective_in_chat

            retrospective_in_chat(self.session, runner.run, question)
            return

        printer = AnswerPrinter(render=sys.stdout.isatty())
        self.tool_lines.printer = printer
        if self.confirm is not None:
            self.confirm.printer = printer
        attachments, self.pending = ([], self.pending) if regenerate else (self.pending, [])
        try:
            with printer:
                asked = (
                    self.session.regenerate(printer)
                    if regenerate
                    else self.session.ask(question, printer, attachments=attachments)
                )
                turn = remote_terminal.run_on(runner.run, asked)
        except KeyboardInterrupt:
            turn = self._stopped_turn(question, attachments, "".join(printer.text))
        report_turn(turn, self.session)

    def _stopped_turn(self, question: str, attachments: list[Attachment], partial: str) -> Turn:
        """The turn Ctrl-C cut short, saved as partial with the tool calls it had made."""
        from vaultctx.agent.session import Turn

        turn = self.session.turn_in_progress or Turn(
            question, attachments=[a.name for a in attachments]
        )
        self.session.turn_in_progress = None
        turn.answer, turn.partial = partial, True
        self.session.record(turn)
        changed = " (changes already made stay: `vaultctx undo` reverts them)"
        print(
            "\n(stopped: the partial answer is saved, but the model will not see it"
            + (")" if not turn.tool_calls else f"){changed}"),
            file=sys.stderr,
        )
        return turn

    def command(self, line: str) -> str | None:
        name, _, argument = line.partition(" ")
        argument = argument.strip()
        if name in ("/quit", "/exit"):
            return "quit"
        if name == "/help":
            print(HELP)
        elif name == "/new":
            self.session.reset()
            print(self.say("new conversation"), file=sys.stderr)
        elif name == "/effort":
            from vaultctx.agent.effort import check_effort_value

            self.session.effort = check_effort_value(_needs(argument, "/effort high"))
        elif name == "/model":
            self.session.switch_model(_needs(argument, "/model NAME"))
        elif name == "/attach":
            from vaultctx.agent.attachments import check_backend_support, load_attachment

            given = Path(_needs(argument, "/attach PATH")).expanduser()
            attachment = load_attachment(remote_terminal.client_path(given))
            check_backend_support(self.session.backend.name, [attachment])
            self.pending.append(attachment)
        elif name == "/note":
            from vaultctx.agent.attachments import note_attachment

            note = note_attachment(self.session.vault, _needs(argument, "/note PATH"))
            self.pending.append(note)
            self.session.active_note = note.name
        elif name == "/mcp":
            self.show_mcp()
        elif name == "/web":
            self.toggle_web(argument)
        elif name == "/regen":
            self.pending_regen = True
        elif name == "/save":
            saved = self.session.save()
            said = self.say("saved as {id}", id=saved) if saved else self.say("nothing to save yet")
            print(said, file=sys.stderr)
        elif name == "/harvest" and self.runner is not None:
            from vaultctx.cli.chat_writers import harvest_in_chat

            harvest_in_chat(self.session, self.runner.run)
        else:
            raise VaultctxError(f"unknown command {name}", "type /help for the list")
        return None

    def toggle_web(self, argument: str) -> None:
        if argument not in ("", "on", "off"):
            raise VaultctxError(f"/web takes on or off, not {argument!r}", "e.g. /web on")
        on = not self.session.web_search if not argument else argument == "on"
        how = self.session.set_web_search(on)
        said = self.say("web search on ({how})", how=how) if on else self.say("web search off")
        print(said, file=sys.stderr)

    def show_mcp(self) -> None:
        for line in _mcp_lines(self.session):
            print(line, file=sys.stderr)


def _line_reader() -> Callable[[str], str]:
    """prompt_toolkit's line editing and history on a terminal; plain lines from a pipe, so a
    script (or a test) can drive a chat: ``printf 'question\n/save\n' | vaultctx chat``. In
    the engine, the client's lines, read there the same way (cli/forward_turn.py)."""
    remote = remote_terminal.line_reader()
    if remote is not None:
        return remote
    if not sys.stdin.isatty():

        def from_pipe(prompt: str) -> str:
            print(prompt, end="", file=sys.stderr, flush=True)
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line

        return from_pipe
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    session: PromptSession[str] = PromptSession(history=FileHistory(str(_history_file())))
    return session.prompt


Result = TypeVar("Result")


class Runner(Protocol):
    def run(self, coroutine: Coroutine[Any, Any, Result]) -> Result: ...


@contextlib.contextmanager
def _runner() -> Iterator[Runner]:
    """``asyncio.Runner`` (3.11+), which turns Ctrl-C into cancelling the running answer; on
    3.10 a loop that cancels the answer itself when Ctrl-C interrupts it."""
    if sys.version_info >= (3, 11):
        with asyncio.Runner() as runner:
            yield runner
        return
    loop = asyncio.new_event_loop()

    class LoopRunner:
        def run(self, coroutine: Coroutine[Any, Any, Result]) -> Result:
            task = loop.create_task(coroutine)
            try:
                return loop.run_until_complete(task)
            except KeyboardInterrupt:
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_until_complete(task)
                raise

    try:
        yield LoopRunner()
    finally:
        loop.close()


def _mcp_lines(session: ChatSession) -> list[str]:
    if session.mcp is None:
        return ["no MCP servers (add them to mcp.json: docs/mcp-client.md)"]
    return [
        printable(
            f"{s.name}: {s.state}, {s.tools} tool(s)"
            + (f" ({s.last_error})" if s.last_error else "")
        )
        for s in session.mcp.status()
    ]


def _needs(argument: str, example: str) -> str:
    if not argument:
        raise VaultctxError(f"{example.split()[0]} needs a value", f"e.g. {example}")
    return argument


def _history_file() -> Path:
    """The chat's line history, which holds every question typed: created ``0600`` in a
    ``0700`` folder, as logs are (private_log.py)."""
    import platformdirs

    from vaultctx.config import APP_NAME
    from vaultctx.private_log import open_private_log

    path = Path(platformdirs.user_state_dir(APP_NAME)) / "chat_history"
    open_private_log(path).close()
    return path
