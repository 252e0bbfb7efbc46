"""One conversation with the vault: each question is searched, answered, streamed and checked.

``ChatSession.ask`` runs a turn: the vault's passages (and any attachments) go to the model with
the question, the model may call the vault's tools (agent/tool_list.py) for up to ten rounds
(agent/tool_loop.py), the answer streams to ``on_text`` as it arrives, then every citation in it
is checked against the vault. A failure mid-answer keeps what had arrived (``Turn.partial``) and
reports the failure as one line; the conversation history only ever holds complete turns (a loop
stopped by its limits is complete: every tool call in it has its result). A failed turn is saved
all the same, the question, what had arrived and the tool calls made, followed by a ``system``
message naming the failure (``FAILED_TURN``), so that nothing the user asked is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.agent.backends import Backend, build_backend
from vaultctx.agent.confirm import Confirm, ConfirmPolicy
from vaultctx.agent.failures import BackendFailure, describe_failure
from vaultctx.agent.prompt import clock_block, stable_prefix
from vaultctx.agent.retrieval import Retrieved, passages_block, retrieve, translation_target
from vaultctx.agent.settings import AgentSettings
from vaultctx.agent.translate import translate_query
from vaultctx.agent.wording import localise
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic_ai.messages import ModelMessage, UserContent
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.toolsets import AbstractToolset

    from vaultctx.agent.attachments import Attachment
    from vaultctx.agent.mcp_client import McpClients
    from vaultctx.agent.toolset import ToolCallSink, ToolGuard
    from vaultctx.agent.web_search import WebPlan
    from vaultctx.api import Vault

TextSink = Callable[[str], None]
TITLE_CHARS = 50
# The saved note of a turn that failed: the failure as the user saw it.
FAILED_TURN = "The answer failed: {error}"
# Saved before a regenerated answer: the answer above it was set aside, not deleted.
REGENERATED = "Regenerated: the answer above was set aside for the one below."


@dataclass
class Turn:
    """A question and what came back; ``as_dict`` is ``vaultctx ask --json``."""

    question: str
    answer: str = ""
    partial: bool = False
    error: BackendFailure | None = None
    retrieved: Retrieved | None = None
    citations: list[str] = field(default_factory=list)
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    attachments: list[str] = field(default_factory=list)
    conversation_id: str | None = None
    # Why the tool loop ended before the model finished (round limit, repeated failures).
    stopped: str | None = None

    def as_dict(self) -> dict[str, Any]:
        retrieved = self.retrieved
        return {
            "question": self.question,
            "answer": self.answer,
            "partial": self.partial,
            "error": self.error.one_line() if self.error else None,
            "citations": self.citations,
            "unresolved": self.unresolved,
            "sources": [p.citation for p in retrieved.passages] if retrieved else [],
            "queries": retrieved.queries if retrieved else [],
            "tool_calls": self.tool_calls,
            "stopped": self.stopped,
            "usage": self.usage,
            "attachments": self.attachments,
            "conversation_id": self.conversation_id,
        }


class ChatSession:
    """A conversation: the model, the vault it answers from, and the turns so far.

    ``confirm`` asks the user about a change before it is made when ``confirm_changes`` is on
    (None: nobody can be asked, so every change is denied); ``on_tool_call`` hears of each tool
    call as it ends; ``active_note`` is the note given with ``--note``/``/note``, which the
    ``get_active_note`` tool reads.
    """

    def __init__(
        self,
        vault: Vault,
        settings: AgentSettings,
        backend: Backend | None = None,
        *,
        confirm: Confirm | None = None,
        on_tool_call: ToolCallSink | None = None,
        mcp: McpClients | None = None,
    ):
        self.vault = vault
        # External MCP servers (started and stopped by the caller, around the turns).
        self.mcp = mcp
        self.settings = settings
        self.backend = backend or build_backend(settings)
        self.history: list[ModelMessage] = []
        self.effort: str | None = settings.effort
        self.conversation_id: str | None = None
        self.save_error: VaultctxError | None = None
        self.confirm_policy = ConfirmPolicy(enabled=settings.confirm_changes, ask=confirm)
        self.on_tool_call = on_tool_call
        self.active_note: str | None = None
        # The turn being answered: what Ctrl-C leaves behind (its tool calls) is saved from it.
        self.turn_in_progress: Turn | None = None
        # Search the web too (agent/web_search.py): Gemini's grounding or an MCP web tool.
        self.web_search = False
        # The last question, its attachments and the history before it, for ``regenerate``.
        self._last_ask: tuple[str, Sequence[Attachment], list[ModelMessage]] | None = None
        self.skills_prompt, self.skill_notices = _skills_prompt(vault.path)

    def switch_model(self, model: str) -> None:
        from dataclasses import replace

        self.settings = replace(self.settings, model=model)
        self.backend = build_backend(self.settings)

    def reset(self) -> None:
        """A new conversation: no history, and the next turn is saved under a new id."""
        self.history = []
        self.conversation_id = None

    def resume(self, conversation_id: str) -> str:
        """Go on with a saved conversation: its turns become the history the model sees, and
        the next turns are appended to it. Returns its full id; an unknown id is refused
        (``UnknownConversationError``) and leaves the session as it was."""
        from vaultctx.agent.resume import saved_history
        from vaultctx.conversations import ConversationStore

        with ConversationStore.open(self.vault.path, create=False) as store:
            chat = store.get(conversation_id)
        self.history = saved_history(chat.messages)
        self.conversation_id = chat.id
        return chat.id

    def save(self) -> str | None:
        """The id the conversation is saved under (every turn is saved as it ends)."""
        return self.conversation_id

    def record(self, turn: Turn, *, regenerated: bool = False) -> None:
        """Save the question and the answer (partial or not), and the failure if the turn
        failed, in one transaction, so a turn is saved whole or not at all. A store that cannot
        be written costs the save, never the answer: the error is kept in ``save_error`` for the
        caller to show."""
        from vaultctx.conversations import ConversationStore, Message
        from vaultctx.conversations.model import ToolCall

        question = Message("user", turn.question, attachments=turn.attachments)
        answer = Message(
            "assistant",
            turn.answer,
            partial=turn.partial or turn.error is not None or turn.stopped is not None,
            tool_calls=[ToolCall(**call) for call in turn.tool_calls],
            citations=turn.citations,
            usage=turn.usage,
        )
        messages = [Message("system", REGENERATED), answer] if regenerated else [question, answer]
        if turn.error is not None:
            messages.append(Message("system", FAILED_TURN.format(error=turn.error.one_line())))
        try:
            with ConversationStore.open(self.vault.path) as store:
                if self.conversation_id is None:
                    title = conversation_title(turn.question)
                    chat = store.new(title, self.backend.name, self.backend.model_name)
                    self.conversation_id = chat.id
                store.append(self.conversation_id, messages)
        except VaultctxError as exc:
            self.save_error = exc
            return
        self.save_error = None
        turn.conversation_id = self.conversation_id

    async def ask(
        self,
        question: str,
        on_text: TextSink,
        *,
        attachments: Sequence[Attachment] = (),
    ) -> Turn:
        self._last_ask = (question, tuple(attachments), list(self.history))
        return await self._answer(question, on_text, attachments, regenerated=False)

    async def regenerate(self, on_text: TextSink) -> Turn:
        """Answer the last question again, from the history before it; the earlier answer stays
        in the saved conversation (before a ``REGENERATED`` note), out of the model's history."""
        if self._last_ask is None:
            raise VaultctxError(
                "there is no answer to regenerate yet", "ask a question first, then regenerate"
            )
        question, attachments, history = self._last_ask
        self.history = list(history)
        return await self._answer(question, on_text, attachments, regenerated=True)

    def set_web_search(self, on: bool) -> str | None:
        """Turn web search on or off; on, what does the searching (refused with why when
        nothing can: ``WebSearchUnavailableError``)."""
        if on:
            how = self._web_plan(force=True)
            self.web_search = True
            return how.how if how else None
        self.web_search = False
        return None

    def _web_plan(self, force: bool = False) -> WebPlan | None:
        from vaultctx.agent.web_search import plan_web_search

        if not (self.web_search or force):
            return None
        names = [tool.name for tool in self.mcp.tools()] if self.mcp is not None else []
        return plan_web_search(self.backend.name, self.backend.model_name, names)

    async def _answer(
        self,
        question: str,
        on_text: TextSink,
        attachments: Sequence[Attachment],
        *,
        regenerated: bool,
    ) -> Turn:
        from vaultctx.agent.attachments import check_backend_support

        check_backend_support(self.backend.name, attachments)
        web = self._web_plan()
        turn = Turn(question, attachments=[a.name for a in attachments])
        self.turn_in_progress = turn
        turn.retrieved = await self._retrieve(question)
        content = self._user_content(question, turn.retrieved, attachments, web)
        await self._stream(turn, content, on_text, web)
        self.turn_in_progress = None
        self._check_citations(turn)
        self.record(turn, regenerated=regenerated)
        return turn

    def conversation_for_changes(self) -> str | None:
        """The conversation's id for the undo ledger, saving the conversation (without messages
        yet) when the first change comes before the first answer. None if it cannot be saved."""
        from vaultctx.conversations import ConversationStore

        turn = self.turn_in_progress
        if self.conversation_id is None and turn is not None:
            try:
                with ConversationStore.open(self.vault.path) as store:
                    title = conversation_title(turn.question)
                    chat = store.new(title, self.backend.name, self.backend.model_name)
            except VaultctxError:
                return None
            self.conversation_id = chat.id
        return self.conversation_id

    async def _retrieve(self, question: str) -> Retrieved:
        queries = [question]
        target = None
        if self.settings.translate:
            target = translation_target(question, self.vault.korean_share())
        if target is not None:
            translated = await translate_query(self.backend.model, question, target)
            if translated:
                queries.append(translated)
        # In a worker thread: the first search of a session loads the query models (seconds on a
        # loaded machine), and the web UI serves every page from this loop meanwhile.
        return await asyncio.to_thread(
            retrieve, self.vault, queries, max_tokens=self.settings.context_tokens, graph=True
        )

    def _user_content(
        self,
        question: str,
        retrieved: Retrieved,
        attachments: Sequence[Attachment],
        web: WebPlan | None = None,
    ) -> Sequence[UserContent]:
        from vaultctx.agent.attachments import to_user_content

        prompt = f"{passages_block(retrieved)}\n\nQuestion: {question}"
        if web is not None:  # the seed's place for it: the question, not the cached prefix
            prompt = f"{web.hint}\n\n{prompt}"
        return to_user_content(prompt, attachments)

    def _model_settings(self, prefix_chars: int = 0) -> ModelSettings:
        from vaultctx.agent.effort import effort_model_settings
        from vaultctx.agent.llm_backends.registry import get_backend

        name, model = self.backend.name, self.backend.model_name
        settings: ModelSettings = {"max_tokens": self.settings.max_tokens}
        settings.update(effort_model_settings(name, model, self.effort))
        settings.update(get_backend(name).prompt_cache_settings(model, prefix_chars))  # type: ignore[typeddict-item]
        return settings

    def instructions(self) -> list[str | Callable[[], str]]:
        """The stable prefix (base prompt, the user's instructions, the skills), then the clock,
        read again on every request: pydantic-ai sends a literal string before a function's
        text, and a prompt cache ends where the literal part does."""
        return [stable_prefix(self.settings.system_prompt, self.skills_prompt), _clock]

    async def _stream(
        self,
        turn: Turn,
        content: Sequence[UserContent],
        on_text: TextSink,
        web: WebPlan | None = None,
    ) -> None:
        import pydantic_ai
        from pydantic_ai import Agent
        from pydantic_ai.capabilities import NativeTool

        from vaultctx.agent.tool_loop import run_tool_loop

        pydantic_ai.BANNER_ENABLED = False  # the terminal is the answer's: no first-run banner

        instructions = self.instructions()
        native = [NativeTool(tool) for tool in (web.native_tools if web else ())]
        agent: Agent[None, str] = Agent(
            self.backend.model, instructions=instructions, capabilities=native
        )
        guard = self._tool_guard(turn)
        received: list[str] = []

        def receive(delta: str) -> None:
            received.append(delta)
            on_text(delta)

        try:
            outcome = await run_tool_loop(
                agent,
                content,
                history=self.history,
                model_settings=self._model_settings(len(str(instructions[0]))),
                toolsets=self.toolsets(guard),
                tracker=guard.tracker,
                on_text=receive,
                refuse_unoffered=guard.refuse_unoffered,
            )
            turn.usage = _usage(outcome.usage)
            turn.stopped = outcome.stopped and localise(
                outcome.stopped, self.settings.user_language()
            )
            self.history = outcome.messages
        except Exception as exc:  # every backend failure becomes one line; the text is kept
            if isinstance(exc, BackendFailure):
                raise
            turn.error = self._failure(exc)
            turn.partial = bool(received)
        turn.answer = "".join(received)

    def _tool_guard(self, turn: Turn) -> ToolGuard:
        """The turn's tool state; its calls are the turn's ``tool_calls`` (the same list)."""
        from vaultctx.agent.toolset import ToolGuard

        return ToolGuard(
            self.vault,
            self.confirm_policy,
            template_folder=self.settings.template_folder,
            calls=turn.tool_calls,
            on_call=self.on_tool_call,
            language=self.settings.user_language(),
        )

    def toolsets(self, guard: ToolGuard) -> list[AbstractToolset[Any]]:
        """Every toolset the model may call this turn, each behind the turn's guard."""
        from vaultctx.agent.brain_tools import session_tools
        from vaultctx.agent.complete import BackendTextModel
        from vaultctx.agent.tool_contract import ToolContext
        from vaultctx.agent.toolset import GuardedToolset, VaultToolset

        context = ToolContext(
            self.vault,
            template_folder=self.settings.template_folder,
            active_note=self.active_note,
            conversation_id=self.conversation_for_changes,
            text_model=BackendTextModel(self.settings, self.backend),
        )
        toolsets: list[AbstractToolset[Any]] = [VaultToolset(context, session_tools(self.vault))]
        if self.mcp is not None:
            toolsets.append(self.mcp.toolset())
        return [GuardedToolset(toolset, guard=guard) for toolset in toolsets]

    def _failure(self, exc: BaseException) -> BackendFailure:
        from pydantic_ai import exceptions as errors

        if not isinstance(exc, (errors.AgentRunError, errors.UserError, OSError)):
            raise exc
        return describe_failure(
            exc,
            backend=self.backend.name,
            model=self.backend.model_name,
            endpoint=self.backend.endpoint,
            secret=self.settings.api_key_secret,
        )

    def _check_citations(self, turn: Turn) -> None:
        from vaultctx.citations import find_citations

        if not turn.answer:
            return
        turn.citations = list(dict.fromkeys(c.text for c in find_citations(turn.answer)))
        report = self.vault.verify_citations(turn.answer)
        turn.unresolved = report.as_dict()["unresolved"]


def _clock() -> str:
    return clock_block()


def _skills_prompt(vault: Path) -> tuple[str, list[str]]:
    """The enabled skills' section of the instructions (agent/skills.py), read once a session;
    a skills folder inside this vault is refused, even one no marker shows to be a vault."""
    from vaultctx.agent.skills import list_skills, refuse_inside_vault, skills_block, skills_folder

    return skills_block(list_skills(refuse_inside_vault(skills_folder(), [vault])))


def conversation_title(question: str) -> str:
    """The first line of the first question, cut to 50 characters."""
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS] + "..."


def _usage(usage: Any) -> dict[str, int]:
    fields = ("input_tokens", "output_tokens", "requests")
    return {name: int(getattr(usage, name, 0) or 0) for name in fields}
