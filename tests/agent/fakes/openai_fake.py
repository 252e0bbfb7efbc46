"""OpenAI Chat Completions, Responses, Embeddings and Models, as ``openai`` 3.x parses them.

The Responses API's bytes are written by the sibling module ``openai_responses.py``.

Shapes follow what the SDK and pydantic-ai's ``OpenAIChatModel`` read: SSE ``data: {chunk}``
events ending in ``data: [DONE]``, every chunk carrying ``"usage": null`` and a final
``choices: []`` chunk with the usage when the request set ``stream_options.include_usage``;
tool calls as ``delta.tool_calls[i]`` with the id and name first, then argument fragments.
The SDK asks for ``encoding_format: base64`` embeddings unless told otherwise (and decodes
little-endian float32), so both encodings are served.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any, ClassVar

from .base import (
    Answer,
    Embeddings,
    FakeServer,
    HttpError,
    RecordedRequest,
    Response,
    Stream,
    StreamError,
    fake_vector,
    http_error_body,
    json_body,
)
from .openai_responses import ResponsesWriter

CREATED = 1_760_000_000


def openai_error(
    status: int,
    message: str,
    *,
    type: str,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> HttpError:
    """An error shaped as OpenAI sends it: ``{"error": {message, type, param, code}}``."""
    body = {"error": {"message": message, "type": type, "param": None, "code": code}}
    return HttpError(status, body, dict(headers or {}), delay)


class OpenAIFake(FakeServer):
    """``/v1/chat/completions``, ``/v1/responses``, ``/v1/embeddings`` and ``GET /v1/models``;
    both model endpoints take their turns from the same ``chat`` queue.

    ``require_key`` makes the fake answer 401 unless ``Authorization: Bearer <key>`` matches,
    as the real API does, so a test can prove which key a client sent.
    """

    name: ClassVar[str] = "openai"
    prefix: ClassVar[str] = "/v1"

    def __init__(
        self,
        *,
        require_key: str | None = None,
        models: tuple[str, ...] = ("gpt-fake", "gpt-fake-mini"),
    ) -> None:
        super().__init__()
        self.require_key = require_key
        self.models = models
        self._counter = 0

    # -- errors shaped like the real ones

    @staticmethod
    def auth_error(key: str = "k") -> HttpError:
        return openai_error(
            401,
            f"Incorrect API key provided: {key}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            type="invalid_request_error",
            code="invalid_api_key",
        )

    @staticmethod
    def rate_limited(retry_after: int = 7) -> HttpError:
        return openai_error(
            429,
            "Rate limit reached for gpt-fake on tokens per min (TPM): Limit 30000, Used 30000, "
            f"Requested 100. Please try again in {retry_after}s.",
            type="tokens",
            code="rate_limit_exceeded",
            headers={
                "retry-after": str(retry_after),
                "x-ratelimit-limit-tokens": "30000",
                "x-ratelimit-remaining-tokens": "0",
                "x-ratelimit-reset-tokens": f"{retry_after}s",
            },
        )

    @staticmethod
    def server_error(status: int = 500) -> HttpError:
        if status == 503:
            return openai_error(
                503, "The server is overloaded or not ready yet.", type="server_error"
            )
        return openai_error(
            status,
            "The server had an error while processing your request. Sorry about that!",
            type="server_error",
        )

    # -- routing

    def handle(self, request: RecordedRequest) -> Response:
        path = request.path
        if path.startswith(self.prefix + "/"):
            if self.require_key is not None and request.header("authorization") != (
                f"Bearer {self.require_key}"
            ):
                return http_error_body(self.auth_error(_bearer(request) or ""))
            route = path[len(self.prefix) :]
            if request.method == "POST" and route == "/chat/completions":
                return self.chat(request)
            if request.method == "POST" and route == "/responses":
                return self.responses(request)
            if request.method == "POST" and route == "/embeddings":
                return self.embeddings(request)
            if request.method == "GET" and route == "/models":
                return json_body(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {"id": model, "object": "model", "created": CREATED, "owned_by": "fake"}
                            for model in self.models
                        ],
                    },
                )
        return self.not_found(request)

    # -- chat

    def chat(self, request: RecordedRequest) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        reply = self.next_reply("chat") or Answer()
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        if not isinstance(reply, Answer):
            raise TypeError(f"a chat request can't answer with {reply!r}")
        self._counter += 1
        completion_id = f"chatcmpl-fake-{self._counter}"
        model = str(body.get("model", "gpt-fake"))
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return self._stream(reply, completion_id, model, include_usage)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.full_text or None,
            "refusal": None,
            "annotations": [],
        }
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.call_id(index),
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.args_json},
                }
                for index, call in enumerate(reply.tool_calls)
            ]
        payload = {
            "id": completion_id,
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": _usage(reply),
            "service_tier": "default",
            "system_fingerprint": "fp_fake",
        }
        return json_body(200, payload, {"x-request-id": f"req_fake_{self._counter}"}, reply.delay)

    def _stream(self, reply: Answer, completion_id: str, model: str, include_usage: bool) -> Stream:
        def chunk(choices: list[dict[str, Any]], usage: Any = None) -> bytes:
            payload: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": CREATED,
                "model": model,
                "service_tier": "default",
                "system_fingerprint": "fp_fake",
                "choices": choices,
            }
            if include_usage:
                payload["usage"] = usage
            return sse(payload)

        def choice(delta: dict[str, Any], finish_reason: str | None = None) -> list[dict[str, Any]]:
            return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]

        first_content: str | None = "" if reply.chunks or not reply.tool_calls else None
        frames = [chunk(choice({"role": "assistant", "content": first_content, "refusal": None}))]
        frames += [chunk(choice({"content": text})) for text in reply.chunks]
        for index, call in enumerate(reply.tool_calls):
            frames.append(
                chunk(
                    choice(
                        {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": call.call_id(index),
                                    "type": "function",
                                    "function": {"name": call.name, "arguments": ""},
                                }
                            ]
                        }
                    )
                )
            )
            frames += [
                chunk(choice({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
                for part in call.fragments()
            ]
        frames.append(chunk(choice({}, "tool_calls" if reply.tool_calls else "stop")))
        if include_usage:
            frames.append(chunk([], _usage(reply)))
        frames.append(b"data: [DONE]\n\n")
        error_frame = None
        if isinstance(reply.fault, StreamError):
            error_frame = sse(
                {
                    "error": {
                        "message": reply.fault.message,
                        "type": reply.fault.code,
                        "param": None,
                        "code": reply.fault.code,
                    }
                }
            )
        return Stream(
            frames,
            "text/event-stream; charset=utf-8",
            delay=reply.delay,
            fault=reply.fault,
            error_frame=error_frame,
        )

    # -- responses

    def responses(self, request: RecordedRequest) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        reply = self.next_reply("chat") or Answer()
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        if not isinstance(reply, Answer):
            raise TypeError(f"a responses request can't answer with {reply!r}")
        self._counter += 1
        writer = ResponsesWriter(reply, body, self._counter)
        if body.get("stream"):
            return writer.stream()
        payload = writer.response("completed", writer.items())
        return json_body(200, payload, {"x-request-id": f"req_fake_{self._counter}"}, reply.delay)

    # -- embeddings

    def embeddings(self, request: RecordedRequest) -> Response:
        body = request.json if isinstance(request.json, dict) else {}
        texts = _texts(body.get("input"))
        reply = self.next_reply("embed")
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        vectors = (
            [list(v) for v in reply.vectors]
            if isinstance(reply, Embeddings)
            else [fake_vector(text, body.get("dimensions") or self.embedding_dim) for text in texts]
        )
        base64_wanted = body.get("encoding_format") == "base64"
        tokens = sum(len(text.split()) for text in texts)
        payload = {
            "object": "list",
            "data": [
                {
                    "object": "embedding",
                    "index": index,
                    "embedding": _b64_floats(vector) if base64_wanted else vector,
                }
                for index, vector in enumerate(vectors)
            ],
            "model": body.get("model", "text-embedding-fake"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return json_body(200, payload)


def sse(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload).encode("utf-8") + b"\n\n"


def _usage(reply: Answer) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.usage.input_tokens,
        "completion_tokens": reply.usage.output_tokens,
        "total_tokens": reply.usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _texts(value: Any) -> list[str]:
    """Embedding inputs as strings; token-id inputs become their repr, which is enough to hash."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(item, int) for item in value):
        return [json.dumps(value)]
    if isinstance(value, list):
        return [item if isinstance(item, str) else json.dumps(item) for item in value]
    return [json.dumps(value)]


def _b64_floats(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def _bearer(request: RecordedRequest) -> str | None:
    value = request.header("authorization") or ""
    return value[len("Bearer ") :] if value.startswith("Bearer ") else None
