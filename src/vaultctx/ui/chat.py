"""The Chat page's conversations: ``ChatSession.ask`` streamed to the browser as Server-Sent
Events.

Each browser page holds one conversation, named by a random key the page sends with every
question; the session lives in the server's memory (at most ``MAX_CONVERSATIONS``, the oldest
forgotten first) and every turn is saved as ``vaultctx chat`` saves it. A conversation has its own
``Vault``, since its turns run on the event loop while pages use the shared one from worker
threads. Stopping is closing the stream: the turn is cancelled with it.

Events: ``text`` (a piece of the answer, as it arrives), ``tool`` (a tool call, as it ends) and
``confirm`` (a change to approve, with ``confirm_changes`` on: answered through ``decide``),
then ``done`` (sources, citations that do not resolve, the answer rendered as HTML by the note
renderer) or ``failure`` (message and fix).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.ui.render import render_markdown

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from vaultctx.agent.attachments import Attachment
    from vaultctx.agent.confirm import ConfirmRequest, Decision
    from vaultctx.agent.session import ChatSession, Turn

    Emit = Callable[[str, Any], None]

MAX_CONVERSATIONS = 20
CONFIRM_TIMEOUT_SECONDS = 600  # unanswered for this long: the change is denied
DECISIONS = ("yes", "no", "always")
MAX_QUESTION_CHARS = 20_000
_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")
UNEXPECTED = "an unexpected error in vaultctx (a bug)"
SEE_LOG = "the terminal running `vaultctx ui` shows the details; please report them, then ask again"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Question:
    """One question as the page sent it."""

    text: str
    effort: str
    attachments: list[Attachment]
    refused: VaultctxError | None
    conversation: str = ""  # a saved conversation this page continues
    active_note: str = ""  # the note open in Obsidian: what ``get_active_note`` reads


class ChatRooms:
    """The conversations of this UI run, by the key each page made up."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._sessions: OrderedDict[str, tuple[ChatSession, asyncio.Lock]] = OrderedDict()
        self._emitters: dict[str, Emit] = {}  # each conversation's turn in progress
        self._pending: dict[str, asyncio.Future[Decision]] = {}  # questions awaiting the user

    def _open(self, key: str, conversation: str = "") -> tuple[ChatSession, asyncio.Lock]:
        """The page's session; a new one continues ``conversation`` when the page names one (a
        conversation opened with "Continue in chat", or this page's own after the server forgot
        it), as ``ChatSession.resume`` does."""
        if key in self._sessions:
            self._sessions.move_to_end(key)
            return self._sessions[key]
        from vaultctx.agent.backends import require_agent_extra
        from vaultctx.agent.session import ChatSession
        from vaultctx.agent.settings import load_agent_settings

        require_agent_extra()
        own = Vault(config=self._vault.config)
        settings = load_agent_settings(own.path, {})
        session = ChatSession(own, settings, confirm=self._confirmer(key))
        if conversation:
            try:
                session.resume(_conversation_id(conversation))
            except BaseException:
                own.close()
                raise
        opened = (session, asyncio.Lock())
        self._sessions[key] = opened
        while len(self._sessions) > MAX_CONVERSATIONS:
            _, (old, _) = self._sessions.popitem(last=False)
            old.vault.close()
        return opened

    def _confirmer(self, key: str) -> Callable[[ConfirmRequest], Any]:
        """With ``confirm_changes`` on: each change is put to the page (a ``confirm`` event)
        and waits for its answer (``decide``); no answer in time, or a closed page, denies it."""

        async def ask_user(request: ConfirmRequest) -> Decision:
            ident = secrets.token_urlsafe(12)
            future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
            self._pending[ident] = future
            question = {
                "id": ident,
                "tool": request.tool,
                "args": json.dumps(dict(request.args), ensure_ascii=False),
                "diff": request.diff or "",
            }
            self._emitters[key]("confirm", question)
            try:
                return await asyncio.wait_for(future, CONFIRM_TIMEOUT_SECONDS)
            except asyncio.TimeoutError:
                return "no"
            finally:
                self._pending.pop(ident, None)

        return ask_user

    def decide(self, ident: str, decision: str) -> bool:
        """The user's answer to a pending question; False when there is none (answered, timed
        out, or never asked)."""
        future = self._pending.get(ident)
        if future is None or future.done() or decision not in DECISIONS:
            return False
        future.set_result(decision)  # type: ignore[arg-type]  # one of DECISIONS
        return True

    async def stream(
        self,
        key: str,
        question: str,
        effort: str = "",
        *,
        attachments: Sequence[Attachment] = (),
        refused: VaultctxError | None = None,
        conversation: str = "",
    ) -> AsyncIterator[str]:
        """The events of one turn (``effort``: a reasoning effort level, or "" for the
        settings' own; ``refused``: why the uploads could not be attached, answered instead);
        closing the iterator cancels the turn."""
        turn = Question(question, effort, list(attachments), refused, conversation)
        async with contextlib.aclosing(self.events(key, turn)) as events:  # Stop cancels at once
            async for kind, data in events:
                yield f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    async def events(self, key: str, turn: Question) -> AsyncGenerator[tuple[str, Any], None]:
        """The events of one turn as (kind, data), for the page's stream and the Obsidian
        plugin's polls alike; closing the iterator cancels the turn."""
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        task = asyncio.create_task(self._answer(key, turn, queue))
        try:
            while True:
                kind, data = await queue.get()
                if kind == "end":
                    return
                yield kind, data
        finally:
            task.cancel()

    async def _answer(
        self, key: str, asked: Question, queue: asyncio.Queue[tuple[str, Any]]
    ) -> None:
        loop = asyncio.get_running_loop()

        def emit(kind: str, data: Any) -> None:
            """In order, from the loop or from a tool's worker thread alike."""
            loop.call_soon_threadsafe(queue.put_nowait, (kind, data))

        question, effort = asked.text, asked.effort
        try:
            if asked.refused is not None:
                raise asked.refused
            if not _KEY.fullmatch(key):
                raise VaultctxError("this page's conversation key is not valid", "reload the page")
            if not question.strip() or len(question) > MAX_QUESTION_CHARS:
                raise VaultctxError(
                    "the question is empty or too long",
                    f"ask something of at most {MAX_QUESTION_CHARS} characters",
                )
            session, lock = self._open(key, asked.conversation)
            from vaultctx.agent.effort import check_effort_value

            session.effort = check_effort_value(effort) if effort else session.settings.effort
            if lock.locked():
                raise VaultctxError(
                    "an answer is still arriving in this conversation", "wait, or press Stop"
                )
            async with lock:
                session.active_note = asked.active_note or None
                self._emitters[key] = emit
                session.on_tool_call = lambda call: emit("tool", tool_step(call))
                turn = await session.ask(
                    question, lambda text: emit("text", text), attachments=asked.attachments
                )
            emit("done", turn_summary(turn))
        except VaultctxError as exc:
            emit("failure", {"message": exc.message, "suggestion": exc.suggestion})
        except Exception:  # a bug: the page says so (else it would wait forever) and the log has it
            log.exception("the chat turn failed")
            emit("failure", {"message": "the answer failed: " + UNEXPECTED, "suggestion": SEE_LOG})
        finally:
            emit("end", None)


def _conversation_id(given: str) -> str:
    """A saved conversation's id as a page may send it: letters and digits only."""
    if not given.isalnum() or len(given) > 64:
        raise VaultctxError(
            f"no conversation {given[:64]!r}", "open one from the Conversations page"
        )
    return given


def earlier_turns(vault: Path, conversation_id: str) -> tuple[Any, list[dict[str, Any]]]:
    """A saved conversation and its questions and answers as the Chat page shows them above
    the next question: answers rendered with the note rules, questions as text."""
    from vaultctx.conversations import ConversationStore

    with ConversationStore.open(vault, create=False) as store:
        chat = store.get(_conversation_id(conversation_id))
    turns = [
        {
            "role": message.role,
            "text": message.text,
            "html": render_markdown(message.text).html if message.role == "assistant" else None,
        }
        for message in chat.messages
        if message.role in ("user", "assistant")
    ]
    return chat, turns


def tool_step(call: dict[str, Any]) -> dict[str, str]:
    """One tool call as the page shows it, a collapsible step: its name, arguments and what it
    returned, in the words of ``vaultctx chat`` (all as text)."""
    return {
        "name": str(call.get("name", "")),
        "args": json.dumps(call.get("args", {}), ensure_ascii=False),
        "result": str(call.get("result_summary", "")),
    }


def turn_summary(turn: Turn) -> dict[str, Any]:
    """What the page shows after the answer: everything the browser inserts is either plain text
    (set as text, never as markup) or the answer as rendered by the note renderer."""
    sources = [p.citation for p in turn.retrieved.passages] if turn.retrieved else []
    return {
        "html": str(render_markdown(turn.answer).html),
        "sources": list(dict.fromkeys(sources)),
        "unresolved": [
            {"citation": item.get("citation", ""), "message": item.get("message", "")}
            for item in turn.unresolved
        ],
        "error": turn.error.one_line() if turn.error else None,
        "stopped": turn.stopped,
        "conversation": turn.conversation_id,
    }
