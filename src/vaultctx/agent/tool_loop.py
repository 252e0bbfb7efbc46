"""One answer as a loop of model rounds and tool calls, with the limits that end it.

A round is one model request; when it ends in tool calls, the tools run (one at a time, in the
order the model gave them) and their results go into the next round. The loop ends when the model
answers without calling a tool, after ``MAX_TOOL_ROUNDS`` rounds ("send another message to
continue"), or when the failure tracker says stop. The text of every round streams to ``on_text``
as it arrives, and what was written stays written: a stopped or cancelled loop keeps it, and every
change is in the undo ledger.

The loop drives ``Agent.iter`` node by node rather than ``run_stream``, which ends at the first
text and would not run a tool the model calls after saying "let me look that up".

A call to a tool that is not offered (a made-up ``web_search``, a Second Brain tool while it is
off) is one bad call, not the end of the answer. pydantic-ai answers it with a retry prompt and
ends the run on the second one (``UnexpectedModelBehavior``), so the loop lifts pydantic-ai's retry
budget to the round limit and, before the next round is sent, replaces each such retry prompt with
``refuse_unoffered``'s answer ("Tool execution error: Unknown tool: web_search"), which the failure
tracker counts: three of them end the loop as any three failures do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultctx.agent.failure_tracker import FAILURE_STOP_MESSAGE, FailureTracker

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelRequest, ModelRequestPart, UserContent
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.toolsets import AbstractToolset

MAX_TOOL_ROUNDS = 10
ROUND_LIMIT_MESSAGE = (
    f"Reached the tool round limit ({MAX_TOOL_ROUNDS}) before finishing. "
    "Send another message to continue."
)
# Between the text of two rounds, so "Let me check." and the answer do not run together.
ROUND_BREAK = "\n\n"

# The answer to a call of a tool no toolset offers, given its name and arguments.
RefuseCall = Callable[[str, dict[str, Any]], str]


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
    refuse_unoffered: RefuseCall,
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
            # What a call of an unknown tool may cost: the tracker and the round limit end the
            # loop, never pydantic-ai's retry budget.
            retries={"tools": max_rounds},
        ) as run:
            async for node in run:
                if Agent.is_model_request_node(node):
                    _answer_unoffered(node.request, run.all_messages(), refuse_unoffered)
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


def _answer_unoffered(
    request: ModelRequest, history: Sequence[ModelMessage], refuse: RefuseCall
) -> None:
    """Replace pydantic-ai's retry prompt for each call of a tool that is not offered with our
    own answer, in place, before the round is sent (the request is not in the history yet)."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart, ToolReturnPart

    calls = {
        part.tool_call_id: part
        for message in history[-1:]
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    }

    def answered(part: ModelRequestPart) -> ModelRequestPart:
        retry = getattr(part, "retry", None)
        if not isinstance(part, ToolReturnPart) or retry is None or retry.cause != "unknown_tool":
            return part
        text = refuse(part.tool_name, _arguments(calls.get(part.tool_call_id)))
        return ToolReturnPart(
            tool_name=part.tool_name, content=text, tool_call_id=part.tool_call_id
        )

    request.parts = [answered(part) for part in request.parts]


def _arguments(call: Any) -> dict[str, Any]:
    if call is None:
        return {}
    try:
        args = call.args_as_dict()
    except ValueError:
        return {"arguments": call.args}
    return args if isinstance(args, dict) else {"arguments": args}


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
