"""OpenAI's Responses API (``POST /v1/responses``), as ``openai`` 3.x and pydantic-ai's
``OpenAIResponsesModel`` parse it; ``OpenAIFake`` serves it beside Chat Completions.

A streamed answer is server-sent events, each an ``event: <type>`` line and a ``data:`` line
holding the event as JSON (the SDK picks the event model by the ``type`` field):
``response.created``, ``response.in_progress``, then per output item ``response.output_item.added``,
its deltas (``response.output_text.delta`` inside a ``content_part`` for text,
``response.function_call_arguments.delta`` for a call) and ``response.output_item.done``; last
``response.completed`` with the whole response and its usage. Every event carries a rising
``sequence_number``; there is no ``[DONE]`` marker.

When the request asks for reasoning (``reasoning.effort``), the answer begins with a reasoning
item carrying ``encrypted_content``, as OpenAI's does for a stateless client (``store: false``
with ``include: ["reasoning.encrypted_content"]``), so a test can check that the next request
hands it back.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Answer, Stream, StreamError

CREATED = 1_760_000_000


class ResponsesWriter:
    """One answer to one ``/v1/responses`` request, as a whole response or as a stream."""

    def __init__(self, reply: Answer, body: dict[str, Any], number: int) -> None:
        self.reply = reply
        self.body = body
        self.id = f"resp_fake_{number}"
        self.number = number
        self.model = str(body.get("model", "gpt-fake"))
        self.sequence = 0

    @property
    def reasons(self) -> bool:
        reasoning = self.body.get("reasoning")
        return isinstance(reasoning, dict) and reasoning.get("effort") not in (None, "none")

    # -- the items of the answer, complete

    def items(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if self.reasons:
            items.append(self.reasoning_item())
        if self.reply.chunks:
            items.append(self.message_item(self.reply.full_text))
        items += [self.call_item(index) for index in range(len(self.reply.tool_calls))]
        return items

    def reasoning_item(self) -> dict[str, Any]:
        return {
            "type": "reasoning",
            "id": f"rs_fake_{self.number}",
            "summary": [],
            "encrypted_content": f"gAAAAfake-reasoning-{self.number}",
        }

    def message_item(self, text: str, status: str = "completed") -> dict[str, Any]:
        content = [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]
        return {
            "type": "message",
            "id": f"msg_fake_{self.number}",
            "status": status,
            "role": "assistant",
            "content": content if text or status == "completed" else [],
        }

    def call_item(self, index: int, arguments: str | None = None) -> dict[str, Any]:
        call = self.reply.tool_calls[index]
        return {
            "type": "function_call",
            "id": f"fc_fake_{self.number}_{index}",
            "call_id": call.call_id(index),
            "name": call.name,
            "arguments": call.args_json if arguments is None else arguments,
            "status": "completed" if arguments is None else "in_progress",
        }

    def response(self, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
        done = status == "completed"
        usage = self.reply.usage
        return {
            "id": self.id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": self.body.get("max_output_tokens"),
            "model": self.model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": (self.body.get("reasoning") or {}).get("effort")},
            "service_tier": "default",
            "store": bool(self.body.get("store", True)),
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": self.body.get("tool_choice", "auto"),
            "tools": self.body.get("tools", []),
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": {
                "input_tokens": usage.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage.total_tokens,
            }
            if done
            else None,
            "metadata": {},
        }

    # -- the stream

    def event(self, kind: str, **fields: Any) -> bytes:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode()

    def frames(self) -> list[bytes]:
        frames = [
            self.event("response.created", response=self.response("in_progress", [])),
            self.event("response.in_progress", response=self.response("in_progress", [])),
        ]
        index = 0
        if self.reasons:
            item = self.reasoning_item()
            frames.append(self.event("response.output_item.added", output_index=index, item=item))
            frames.append(self.event("response.output_item.done", output_index=index, item=item))
            index += 1
        if self.reply.chunks:
            frames += self.text_frames(index)
            index += 1
        for position in range(len(self.reply.tool_calls)):
            frames += self.call_frames(index, position)
            index += 1
        frames.append(
            self.event("response.completed", response=self.response("completed", self.items()))
        )
        return frames

    def text_frames(self, index: int) -> list[bytes]:
        item_id = f"msg_fake_{self.number}"
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        empty_part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        text = self.reply.full_text
        frames = [
            self.event(
                "response.output_item.added",
                output_index=index,
                item=self.message_item("", status="in_progress"),
            ),
            self.event("response.content_part.added", **where, part=empty_part),
        ]
        frames += [
            self.event("response.output_text.delta", **where, delta=chunk, logprobs=[])
            for chunk in self.reply.chunks
        ]
        part = {**empty_part, "text": text}
        frames += [
            self.event("response.output_text.done", **where, text=text, logprobs=[]),
            self.event("response.content_part.done", **where, part=part),
            self.event(
                "response.output_item.done", output_index=index, item=self.message_item(text)
            ),
        ]
        return frames

    def call_frames(self, index: int, position: int) -> list[bytes]:
        call = self.reply.tool_calls[position]
        item_id = f"fc_fake_{self.number}_{position}"
        frames = [
            self.event(
                "response.output_item.added",
                output_index=index,
                item=self.call_item(position, arguments=""),
            )
        ]
        frames += [
            self.event(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=fragment,
            )
            for fragment in call.fragments()
        ]
        frames += [
            self.event(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=index,
                name=call.name,
                arguments=call.args_json,
            ),
            self.event(
                "response.output_item.done", output_index=index, item=self.call_item(position)
            ),
        ]
        return frames

    def stream(self) -> Stream:
        error_frame = None
        if isinstance(self.reply.fault, StreamError):
            error_frame = self.event(
                "error", code=self.reply.fault.code, message=self.reply.fault.message, param=None
            )
        return Stream(
            self.frames(),
            "text/event-stream; charset=utf-8",
            headers={"x-request-id": f"req_fake_{self.number}"},
            delay=self.reply.delay,
            fault=self.reply.fault,
            error_frame=error_frame,
        )
