"""One answer as a loop of model rounds and tool calls, with the limits that end it.

A round is one model request; when it ends in tool calls, the tools run (one at a time, in the
order the model gave them) and their results go into the next round. The loop ends when the model
answers without calling a tool, after ``MAX_TOOL_ROUNDS`` rounds ("send another message to
continue"), or when the failure tracker says stop. The text of every round streams to ``on_text``
as it arrives, and what was written stays written: a stopped or cancelled loop keeps it, and every
change is in the undo ledger.

The loop drives ``Agent.iter`` node by node rather than ``run_stream``, which ends at the first
text and would not run a tool the model calls after saying "let me look that up".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.agent.failure_tracker import FAILURE_STOP_MESSAGE, FailureTracker

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, UserContent
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.toolsets import AbstractToolset

MAX_TOOL_ROUNDS = 10
ROUND_LIMIT_MESSAGE = (
    f"Reached the tool round limit ({MAX_TOOL_ROUNDS}) before finishing. "
    "Send another message to continue."
)
# Between the text of two rounds, so "Let me check." and the answer do not run together.
ROUND_BREAK = "\n\n"


@dataclass
class LoopResult:
    """The history to keep (complete: every tool call has its result), why the loop stopped
    early (None: the model finished), the rounds made and the usage."""

    messages: list[ModelMessage] = field(default_factory=list)
    stopped: str | None = None
    rounds: int = 0
    usage: Any = None


async def run_tool_loop(
    agent: Agent[None, str],
    content: Sequence[UserContent],
    *,
    history: Sequence[ModelMessage],
    model_settings: ModelSettings,
    toolsets: Sequence[AbstractToolset[Any]],
    tracker: FailureTracker,
    on_text: Callable[[str], None],
    max_rounds: int = MAX_TOOL_ROUNDS,
) -> LoopResult:
    from pydantic_ai import Agent

    outcome = LoopResult()
    wrote = _TextJoiner(on_text)
    with Agent.parallel_tool_call_execution_mode("sequential"):
        async with agent.iter(
            content,
            message_history=list(history),
            model_settings=model_settings,  # type: ignore[arg-type]
            toolsets=list(toolsets),
        ) as run:
            async for node in run:
                if Agent.is_model_request_node(node):
                    stop = _stop_reason(outcome.rounds, max_rounds, tracker)
                    if stop is not None:
                        outcome.stopped = stop
                        outcome.messages = _with_pending(list(run.all_messages()), node.request)
                        break
                    outcome.rounds += 1
                    wrote.new_round()
                    async with node.stream(run.ctx) as stream:
                        await _stream_text(stream, wrote)
                outcome.messages = list(run.all_messages())
            outcome.usage = run.usage
    return outcome


def _stop_reason(rounds: int, max_rounds: int, tracker: FailureTracker) -> str | None:
    """Checked before each round: the previous round's tools may have stopped the loop."""
    if tracker.stopped:
        return FAILURE_STOP_MESSAGE
    if rounds >= max_rounds:
        return ROUND_LIMIT_MESSAGE
    return None


def _with_pending(messages: list[ModelMessage], request: ModelMessage) -> list[ModelMessage]:
    """The history with the tool results the next round would have sent, so that the next
    message continues from them (every provider refuses a tool call without its result)."""
    if any(message is request for message in messages):
        return messages
    return [*messages, request]


async def _stream_text(stream: Any, wrote: _TextJoiner) -> None:
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    async for event in stream:
        if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
            wrote(event.part.content)
        elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
            wrote(event.delta.content_delta)


class _TextJoiner:
    """Passes text on, putting a paragraph break between the text of two rounds."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink
        self.written = ""
        self.round_started = False

    def new_round(self) -> None:
        self.round_started = True

    def __call__(self, delta: str) -> None:
        if not delta:
            return
        if self.round_started and self.written and not self.written.endswith("\n\n"):
            delta = ROUND_BREAK[len(self.written) - len(self.written.rstrip("\n")) :] + delta
        self.round_started = False
        self.written = (self.written + delta)[-2:]
        self.sink(delta)
