"""A pydantic-ai ``FunctionModel`` that streams scripted rounds: text, tool calls, or both.

Each round is a list of text chunks and ``Call``s; after the last round the model answers
``FINAL``. ``requests`` keeps every message list the model was given, so a test can read the tool
results that came back; ``offered`` the names of the tools offered in each request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

FINAL = "All done."


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any] | str = field(default_factory=dict)


Round = Sequence[str | Call]


@dataclass
class ScriptedModel:
    rounds: list[Round]
    requests: list[list[ModelMessage]] = field(default_factory=list)
    offered: list[list[str]] = field(default_factory=list)

    def model(self) -> FunctionModel:
        return FunctionModel(stream_function=self._stream)

    async def _stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        self.requests.append(list(messages))
        self.offered.append([tool.name for tool in info.function_tools])
        index = len(self.requests) - 1
        script: Round = self.rounds[index] if index < len(self.rounds) else [FINAL]
        position = 0
        for item in script:
            if isinstance(item, str):
                yield item
            else:
                args = item.args if isinstance(item.args, str) else json.dumps(item.args)
                call_id = f"call_{index}_{position}"
                yield {position: DeltaToolCall(item.name, args, tool_call_id=call_id)}
                position += 1

    def tool_results(self, request: int = -1) -> list[str]:
        """The tool results the model was sent in request ``request`` (-1: the last)."""
        last = self.requests[request][-1]
        return [str(p.content) for p in last.parts if isinstance(p, ToolReturnPart)]
