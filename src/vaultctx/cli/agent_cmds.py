"""``vaultctx ask`` (one question) and ``vaultctx chat`` (a conversation) with the vault.

Both need the agent extra (``pip install 'vaultctx[agent]'``); without it they say so in one line.
The answer streams to stdout as it arrives (rendered markdown on a terminal, plain text when
piped); citations that do not resolve in the vault are listed on stderr afterwards.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli import remote_terminal
from vaultctx.cli.answer_output import ASK_HINT, AnswerPrinter, denied_changes, report_turn
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups

if TYPE_CHECKING:
    from vaultctx.agent.attachments import Attachment
    from vaultctx.agent.mcp_client import McpClients
    from vaultctx.agent.session import ChatSession, Turn
    from vaultctx.agent.settings import AgentSettings
    from vaultctx.api import Vault
    from vaultctx.cli.tool_prompts import TerminalConfirm

AllowChangesOption = Annotated[
    bool,
    typer.Option(
        "--allow-changes",
        help="Make the changes the model asks for without asking (each is recorded: "
        "`vaultctx undo` reverts it). Without it and without a terminal, every change is denied.",
    ),
]


@dataclass(frozen=True)
class SessionFlags:
    """What ``ask`` and ``chat`` send with the questions besides the model options."""

    attach: Annotated[
        list[Path] | None,
        typer.Option(
            "--attach", help="A file to send with the question (repeatable).", show_default=False
        ),
    ] = None
    note: Annotated[
        str | None,
        typer.Option(
            "--note",
            help="The current note (vault-relative path), sent with the question.",
            show_default=False,
        ),
    ] = None
    effort: Annotated[
        str | None,
        typer.Option(
            "--effort",
            help="Reasoning effort: minimal, low, medium, high, xhigh, max.",
            show_default=False,
        ),
    ] = None
    web: Annotated[
        bool,
        typer.Option(
            "--web",
            help="Search the web too: Google Search on gemini, else a connected MCP tool whose "
            "name holds fetch, exa or brave (refused when there is neither).",
        ),
    ] = False


NO_SESSION_FLAGS = SessionFlags()


def agent_settings(
    vault: Vault, model_flags: ModelFlags = NO_MODEL_FLAGS, effort: str | None = None
) -> AgentSettings:
    from vaultctx.agent.backends import require_agent_extra
    from vaultctx.agent.effort import check_effort_value
    from vaultctx.agent.settings import load_agent_settings

    require_agent_extra()
    flags: dict[str, str | None] = model_flags.overrides()
    if effort is not None:
        flags["effort"] = check_effort_value(effort)
    return load_agent_settings(vault.path, flags)


def load_attachments(vault: Vault, files: list[Path] | None, note: str | None) -> list[Attachment]:
    from vaultctx.agent.attachments import load_attachment, note_attachment

    loaded = [load_attachment(remote_terminal.client_path(path)) for path in files or []]
    if note:
        loaded.insert(0, note_attachment(vault, note))
    return loaded


def mcp_servers(settings: AgentSettings) -> McpClients | None:
    """The external MCP servers of mcp.json, not started yet (None without any: nothing to
    start, no time spent). A bad mcp.json is an error before anything is asked."""
    from vaultctx.agent.mcp_config import load_mcp_config

    servers = load_mcp_config(settings.mcp_config)
    if not servers:
        return None  # and the MCP SDK (~0.3 s of imports) is never loaded
    from vaultctx.agent.mcp_client import McpClients

    return McpClients(servers, timeout=settings.mcp_timeout)


def run_turn(
    session: ChatSession,
    question: str,
    attachments: list[Attachment],
    *,
    json_out: bool,
    confirm: TerminalConfirm | None = None,
) -> Turn:
    from vaultctx.cli.tool_prompts import ToolCallPrinter

    render = sys.stdout.isatty() and not json_out
    printer = AnswerPrinter(render=render)
    if confirm is not None:
        confirm.printer = printer
    sink = (lambda _delta: None) if json_out else printer
    if not json_out:
        tool_lines = ToolCallPrinter()
        tool_lines.printer = printer
        session.on_tool_call = tool_lines

    async def answer() -> Turn:
        if session.mcp is None:
            return await session.ask(question, sink, attachments=attachments)
        async with session.mcp:
            return await session.ask(question, sink, attachments=attachments)

    with printer if not json_out else _nothing():
        return remote_terminal.run(answer())


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def open_session(
    vault: str | None,
    db: str | None,
    session_flags: SessionFlags = NO_SESSION_FLAGS,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
) -> tuple[ChatSession, list[Attachment]]:
    """What ``ask`` and ``chat`` both start from: the vault, the settings (flags over the files),
    the attachments (checked before anything is sent) and a session with the MCP servers."""
    from vaultctx.agent.session import ChatSession
    from vaultctx.cli.remote_search import search_through_server

    handle = open_vault(vault, db)
    search_through_server(handle)
    settings = agent_settings(handle, model_flags, session_flags.effort)
    attachments = load_attachments(handle, session_flags.attach, session_flags.note)
    session = ChatSession(handle, settings, mcp=mcp_servers(settings))
    session.active_note = attachments[0].name if session_flags.note else None
    session.web_search = session_flags.web  # checked at the question, once MCP tools are listed
    return session, attachments


@takes_option_groups
def ask(
    question: Annotated[str, typer.Argument(help="The question; - reads it from standard input.")],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    session_flags: SessionFlags = NO_SESSION_FLAGS,
    allow_changes: AllowChangesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Answer QUESTION from your notes with the configured model, citing the notes it used.

    A change the model asks for is confirmed at the terminal (confirm_changes); without a
    terminal it is denied, and named after the answer, unless --allow-changes is given.
    """
    from vaultctx.errors import VaultctxError

    text = sys.stdin.read() if question == "-" else question
    if not text.strip():
        raise VaultctxError(
            "the question is empty",
            'ask something, e.g. vaultctx ask "what did we decide about X?"',
        )
    session, attachments = open_session(vault, db, session_flags, model_flags)
    confirm = confirm_for_ask(session, allow_changes=allow_changes, terminal=sys.stdin.isatty())
    turn = run_turn(session, text, attachments, json_out=as_json, confirm=confirm)
    if as_json:
        answer = turn.as_dict()
        if session.confirm_policy.ask is None:
            answer["denied_changes"] = denied_changes(turn)
        print(json.dumps(answer, ensure_ascii=False))
    else:
        report_turn(turn, session, no_terminal_hint=ASK_HINT)
    if turn.error is not None:
        raise typer.Exit(2)


def confirm_for_ask(
    session: ChatSession, *, allow_changes: bool, terminal: bool
) -> TerminalConfirm | None:
    """Who confirms ``ask``'s changes. ``--allow-changes``: nobody, they are made (and recorded).
    At a terminal: the user, as ``confirm_changes`` says. Without one nobody can be asked, so
    every change is denied, whatever the setting: a script's question never changes the vault
    unless the script says so."""
    from vaultctx.cli.tool_prompts import TerminalConfirm

    policy = session.confirm_policy
    if allow_changes:
        policy.enabled = False
        return None
    if not terminal:
        policy.enabled, policy.ask = True, None
        return None
    if not policy.enabled:
        return None
    confirm = TerminalConfirm()
    policy.ask = confirm
    return confirm


@takes_option_groups
def chat(
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    session_flags: SessionFlags = NO_SESSION_FLAGS,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="ID",
            help="Continue a saved conversation (an id, or its unique start, from "
            "`vaultctx conversations list`): the model sees its turns, new ones are added to it.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Chat with your notes. /help lists the commands; Ctrl-C stops an answer, twice leaves."""
    from vaultctx.cli.chat_repl import ChatRepl

    session, attachments = open_session(vault, db, session_flags, model_flags)
    if resume is not None:
        resumed = session.resume(resume)
        print(f"continuing conversation {resumed}", file=sys.stderr)
    ChatRepl(session, attachments).run()


def register(app: typer.Typer) -> None:
    app.command()(ask)
    app.command()(chat)
