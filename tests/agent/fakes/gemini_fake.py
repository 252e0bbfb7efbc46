"""The Gemini API (``generativelanguage``) as google-genai 2.x reads it.

google-genai joins ``base_url`` + ``v1beta/`` + ``models/{model}:{method}`` and sends the key in
``x-goog-api-key``. A stream is ``:streamGenerateContent?alt=sse``: each SSE ``data:`` line is a
whole ``GenerateContentResponse``; the SDK reads any other non-empty line as (part of) a JSON
body, so a garbage line there is a decode error, unlike the OpenAI SDK which skips it. Function
calls come whole, as ``functionCall`` parts with ``args`` as an object; usage rides on every
chunk as cumulative ``usageMetadata``. Errors are ``{"error": {code, message, status, details}}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
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

_MODEL_CALL = re.compile(r"^/(?P<version>v1[a-z0-9]*)/models/(?P<model>[^:/]+):(?P<method>\w+)$")
_MODEL_GET = re.compile(r"^/(?P<version>v1[a-z0-9]*)/models/(?P<model>[^:/]+)$")
_MODEL_LIST = re.compile(r"^/(?P<version>v1[a-z0-9]*)/models$")


_RPC_STATUS_CODES = {
    "INVALID_ARGUMENT": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "RESOURCE_EXHAUSTED": 429,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}
"""HTTP codes of the google.rpc statuses, for an in-stream error given by its status name."""


def google_error(
    status: int,
    message: str,
    rpc_status: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> HttpError:
    """An error shaped as Google APIs send it."""
    error: dict[str, Any] = {"code": status, "message": message, "status": rpc_status}
    if details:
        error["details"] = details
    return HttpError(status, {"error": error}, dict(headers or {}))


@dataclass(frozen=True)
class GeminiModel:
    """An entry of ``GET /v1beta/models``."""

    name: str
    methods: tuple[str, ...] = ("generateContent", "countTokens", "createCachedContent")
    input_limit: int = 1_048_576
    output_limit: int = 65_536

    def as_json(self) -> dict[str, Any]:
        return {
            "name": f"models/{self.name}",
            "version": "001",
            "displayName": self.name.replace("-", " ").title(),
            "description": f"The fake's {self.name}.",
            "inputTokenLimit": self.input_limit,
            "outputTokenLimit": self.output_limit,
            "supportedGenerationMethods": list(self.methods),
        }


DEFAULT_MODELS = (
    GeminiModel("gemini-2.5-flash"),
    GeminiModel("gemini-2.5-pro"),
    GeminiModel("gemini-embedding-001", ("embedContent", "countTextTokens"), 2048, 1),
)


class GeminiFake(FakeServer):
    """``:generateContent``, ``:streamGenerateContent``, ``:embedContent``, ``:batchEmbedContents``
    and the paginated ``GET models`` list, under any ``v1*`` version.

    ``require_key`` answers Google's real invalid-key error unless ``x-goog-api-key`` matches.
    """

    name: ClassVar[str] = "gemini"

    def __init__(
        self,
        *,
        require_key: str | None = None,
        models: tuple[GeminiModel, ...] = DEFAULT_MODELS,
        page_size: int = 50,
    ) -> None:
        super().__init__()
        self.require_key = require_key
        self.models = models
        self.page_size = page_size
        self._counter = 0

    # -- errors shaped like the real ones

    @staticmethod
    def auth_error() -> HttpError:
        """A bad key is a 400 INVALID_ARGUMENT whose ErrorInfo says API_KEY_INVALID, not a 401."""
        message = "API key not valid. Please pass a valid API key."
        return google_error(
            400,
            message,
            "INVALID_ARGUMENT",
            [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": message,
                },
            ],
        )

    @staticmethod
    def unauthenticated() -> HttpError:
        return google_error(
            401,
            "Request had invalid authentication credentials.",
            "UNAUTHENTICATED",
        )

    @staticmethod
    def rate_limited(retry_after: int = 27, *, daily: bool = False) -> HttpError:
        """RESOURCE_EXHAUSTED: the wait is in the body's RetryInfo (Gemini sends no Retry-After)."""
        quota = "GenerateRequestsPer{}PerProjectPerModel-FreeTier".format(
            "Day" if daily else "Minute"
        )
        return google_error(
            429,
            "You exceeded your current quota, please check your plan and billing details. "
            f"Please retry in {retry_after}s.",
            "RESOURCE_EXHAUSTED",
            [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": quota,
                            "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"},
                            "quotaValue": "10",
                        }
                    ],
                },
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": f"{retry_after}s",
                },
            ],
        )

    @staticmethod
    def server_error(status: int = 500) -> HttpError:
        if status == 503:
            return google_error(
                503, "The model is overloaded. Please try again later.", "UNAVAILABLE"
            )
        return google_error(
            status,
            "An internal error has occurred. Please retry or report in "
            "https://developers.generativeai.google/guide/troubleshooting",
            "INTERNAL",
        )

    # -- routing

    def handle(self, request: RecordedRequest) -> Response:
        if self.require_key is not None and request.header("x-goog-api-key") != self.require_key:
            return http_error_body(self.auth_error())
        body: dict[str, Any] = request.json if isinstance(request.json, dict) else {}
        if request.method == "POST" and (match := _MODEL_CALL.match(request.path)):
            model, method = match["model"], match["method"]
            if method == "generateContent":
                return self._generate(model, stream=False)
            if method == "streamGenerateContent":
                return self._generate(model, stream=True)
            if method == "embedContent":
                return self._embed(model, [body.get("content", {})], single=True)
            if method == "batchEmbedContents":
                contents = [item.get("content", {}) for item in body.get("requests", [])]
                return self._embed(model, contents, single=False)
        if request.method == "GET" and _MODEL_LIST.match(request.path):
            return self._list(request)
        if request.method == "GET" and (match := _MODEL_GET.match(request.path)):
            found = next((m for m in self.models if m.name == match["model"]), None)
            if found is not None:
                return json_body(200, found.as_json())
            return http_error_body(
                google_error(404, f"models/{match['model']} is not found.", "NOT_FOUND")
            )
        return self.not_found(request)

    def _list(self, request: RecordedRequest) -> Response:
        size = int((request.query.get("pageSize") or [str(self.page_size)])[0])
        start = int((request.query.get("pageToken") or ["0"])[0] or 0)
        page: dict[str, Any] = {"models": [m.as_json() for m in self.models[start : start + size]]}
        if start + size < len(self.models):
            page["nextPageToken"] = str(start + size)
        return json_body(200, page)

    # -- generation

    def _generate(self, model: str, *, stream: bool) -> Response:
        reply = self.next_reply("chat") or Answer()
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        if not isinstance(reply, Answer):
            raise TypeError(f"a generate request can't answer with {reply!r}")
        self._counter += 1
        response_id = f"fake-response-{self._counter}"
        calls = [
            {"functionCall": {"name": call.name, "args": call.args_object}}
            for call in reply.tool_calls
        ]
        if not stream:
            parts = ([{"text": reply.full_text}] if reply.full_text else []) + calls
            return json_body(
                200, self._chunk(reply, model, response_id, parts, final=True), delay=reply.delay
            )
        part_lists = [[{"text": text}] for text in reply.chunks] + ([calls] if calls else [])
        part_lists = part_lists or [[{"text": ""}]]
        frames = [
            _sse(
                self._chunk(
                    reply,
                    model,
                    response_id,
                    parts,
                    final=index == len(part_lists) - 1,
                    produced=index + 1,
                    of=len(part_lists),
                )
            )
            for index, parts in enumerate(part_lists)
        ]
        error_frame = None
        if isinstance(reply.fault, StreamError):
            code = _RPC_STATUS_CODES.get(reply.fault.code, 500)
            error_frame = _sse(
                {
                    "error": {
                        "code": code,
                        "message": reply.fault.message,
                        "status": reply.fault.code,
                    }
                }
            )
        return Stream(
            frames,
            "text/event-stream",
            delay=reply.delay,
            fault=reply.fault,
            error_frame=error_frame,
        )

    @staticmethod
    def _chunk(
        reply: Answer,
        model: str,
        response_id: str,
        parts: list[dict[str, Any]],
        *,
        final: bool,
        produced: int = 1,
        of: int = 1,
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if final:
            candidate["finishReason"] = "STOP"
        # Cumulative, as Gemini streams it: the prompt count from the start, output growing.
        output = reply.usage.output_tokens if final else reply.usage.output_tokens * produced // of
        usage: dict[str, Any] = {
            "promptTokenCount": reply.usage.input_tokens,
            "totalTokenCount": reply.usage.input_tokens + output,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": reply.usage.input_tokens}],
        }
        if output:
            usage["candidatesTokenCount"] = output
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": response_id,
        }

    # -- embeddings

    def _embed(self, model: str, contents: list[dict[str, Any]], *, single: bool) -> Response:
        reply = self.next_reply("embed")
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        texts = [
            " ".join(str(part.get("text", "")) for part in content.get("parts", []))
            for content in contents
        ]
        vectors = (
            [list(v) for v in reply.vectors]
            if isinstance(reply, Embeddings)
            else [fake_vector(text, self.embedding_dim) for text in texts]
        )
        if single:
            return json_body(200, {"embedding": {"values": vectors[0]}})
        return json_body(200, {"embeddings": [{"values": vector} for vector in vectors]})


def _sse(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload).encode("utf-8") + b"\r\n\r\n"
