"""One conversation with the vault: each question is searched, answered, streamed and checked.

``ChatSession.ask`` runs a turn: the vault's passages (and any attachments) go to the model with
the question, the answer streams to ``on_text`` as it arrives, then every citation in it is checked
against the vault. A failure mid-answer keeps what had arrived (``Turn.partial``) and reports the
failure as one line; the conversation history only ever holds complete turns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.agent.backends import Backend, build_backend
from vaultctx.agent.failures import BackendFailure, describe_failure
from vaultctx.agent.prompt import system_prompt
from vaultctx.agent.retrieval import Retrieved, passages_block, retrieve, translation_target
from vaultctx.agent.settings import AgentSettings
from vaultctx.agent.translate import translate_query
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, UserContent
    from pydantic_ai.settings import ModelSettings

    from vaultctx.agent.attachments import Attachment
    from vaultctx.api import Vault

TextSink = Callable[[str], None]
TITLE_CHARS = 50


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
            "usage": self.usage,
            "attachments": self.attachments,
            "conversation_id": self.conversation_id,
        }


class ChatSession:
    """A conversation: the model, the vault it answers from, and the turns so far."""

    def __init__(self, vault: Vault, settings: AgentSettings, backend: Backend | None = None):
        self.vault = vault
        self.settings = settings
        self.backend = backend or build_backend(settings)
        self.history: list[ModelMessage] = []
        self.effort: str | None = settings.effort
        self.conversation_id: str | None = None
        self.save_error: VaultctxError | None = None

    def switch_model(self, model: str) -> None:
        from dataclasses import replace

        self.settings = replace(self.settings, model=model)
        self.backend = build_backend(self.settings)

    def reset(self) -> None:
        """A new conversation: no history, and the next turn is saved under a new id."""
        self.history = []
        self.conversation_id = None

    def save(self) -> str | None:
        """The id the conversation is saved under (every turn is saved as it ends)."""
        return self.conversation_id

    def record(self, turn: Turn) -> None:
        """Save the question and the answer (partial or not) in one transaction, so a turn is
        saved whole or not at all. A store that cannot be written costs the save, never the
        answer: the error is kept in ``save_error`` for the caller to show."""
        from vaultctx.conversations import ConversationStore, Message

        question = Message("user", turn.question, attachments=turn.attachments)
        answer = Message(
            "assistant",
            turn.answer,
            partial=turn.partial or turn.error is not None,
            citations=turn.citations,
            usage=turn.usage,
        )
        try:
            with ConversationStore.open(self.vault.path) as store:
                if self.conversation_id is None:
                    title = conversation_title(turn.question)
                    chat = store.new(title, self.backend.name, self.backend.model_name)
                    self.conversation_id = chat.id
                store.append(self.conversation_id, [question, answer])
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
        from vaultctx.agent.attachments import check_backend_support

        check_backend_support(self.backend.name, attachments)
        turn = Turn(question, attachments=[a.name for a in attachments])
        turn.retrieved = await self._retrieve(question)
        content = self._user_content(question, turn.retrieved, attachments)
        await self._stream(turn, content, on_text)
        self._check_citations(turn)
        if turn.answer or turn.error is None:
            self.record(turn)
        return turn

    async def _retrieve(self, question: str) -> Retrieved:
        queries = [question]
        target = None
        if self.settings.translate:
            target = translation_target(question, self.vault.korean_share())
        if target is not None:
            translated = await translate_query(self.backend.model, question, target)
            if translated:
                queries.append(translated)
        return retrieve(self.vault, queries, max_tokens=self.settings.context_tokens, graph=False)

    def _user_content(
        self, question: str, retrieved: Retrieved, attachments: Sequence[Attachment]
    ) -> Sequence[UserContent]:
        from vaultctx.agent.attachments import to_user_content

        prompt = f"{passages_block(retrieved)}\n\nQuestion: {question}"
        return to_user_content(prompt, attachments)

    def _model_settings(self) -> ModelSettings:
        from vaultctx.agent.effort import effort_model_settings

        settings: ModelSettings = {"max_tokens": self.settings.max_tokens}
        settings.update(
            effort_model_settings(self.backend.name, self.backend.model_name, self.effort)
        )
        return settings

    async def _stream(self, turn: Turn, content: Sequence[UserContent], on_text: TextSink) -> None:
        from pydantic_ai import Agent

        agent: Agent[None, str] = Agent(
            self.backend.model, instructions=system_prompt(self.settings.system_prompt)
        )
        received: list[str] = []
        try:
            async with agent.run_stream(
                content,
                message_history=self.history,
                model_settings=self._model_settings(),  # type: ignore[arg-type]
            ) as result:
                async for delta in result.stream_text(delta=True, debounce_by=None):
                    received.append(delta)
                    on_text(delta)
            turn.usage = _usage(result.usage)  # a property since pydantic-ai 2.x
            self.history = result.all_messages()
        except Exception as exc:  # every backend failure becomes one line; the text is kept
            if isinstance(exc, BackendFailure):
                raise
            turn.error = self._failure(exc)
            turn.partial = bool(received)
        turn.answer = "".join(received)

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


def conversation_title(question: str) -> str:
    """The first line of the first question, cut to 50 characters."""
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS] + "..."


def _usage(usage: Any) -> dict[str, int]:
    fields = ("input_tokens", "output_tokens", "requests")
    return {name: int(getattr(usage, name, 0) or 0) for name in fields}
