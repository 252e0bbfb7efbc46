"""Amazon Bedrock: the runtime (Converse, ConverseStream, InvokeModel) and the control plane lists.

botocore reads ``converse-stream`` as an AWS event stream, a binary framing: each message is a
prelude (total length, headers length, CRC32 of those 8 bytes), typed headers (``:event-type``,
``:content-type``, ``:message-type``), a JSON payload and a CRC32 of everything before it. The
encoder below writes that; botocore's own decoder checks both CRCs, so a wrong byte fails there.
HTTP errors are rest-json: the code in ``x-amzn-ErrorType``, the text in the body's ``message``.
Both ``bedrock-runtime`` and ``bedrock`` clients can point at one fake; the paths don't overlap.
"""

from __future__ import annotations

import json
import re
import struct
from binascii import crc32
from dataclasses import dataclass
from typing import Any, ClassVar

from .base import (
    Answer,
    Body,
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

_RUNTIME = re.compile(r"^/model/(?P<model>.+)/(?P<action>converse|converse-stream|invoke)$")
EVENT_STREAM = "application/vnd.amazon.eventstream"


def encode_event_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message with string-typed (type 7) headers, as botocore decodes it."""
    encoded_headers = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        encoded_headers += struct.pack(">B", len(raw_name)) + raw_name
        encoded_headers += b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    # Prelude: total length, headers length, then a CRC32 of those 8 bytes.
    total_length = 12 + len(encoded_headers) + len(payload) + 4
    prelude = struct.pack(">II", total_length, len(encoded_headers))
    prelude += struct.pack(">I", crc32(prelude) & 0xFFFFFFFF)
    message = prelude + encoded_headers + payload
    # The message CRC covers everything before it, prelude CRC included.
    return message + struct.pack(">I", crc32(message) & 0xFFFFFFFF)


def event(event_type: str, payload: dict[str, Any]) -> bytes:
    return encode_event_message(
        {
            ":event-type": event_type,
            ":content-type": "application/json",
            ":message-type": "event",
        },
        json.dumps(payload).encode("utf-8"),
    )


def exception_event(exception_type: str, message: str) -> bytes:
    """An in-stream exception like ``throttlingException``: lower camel case, unlike HTTP errors."""
    return encode_event_message(
        {
            ":exception-type": exception_type,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": message}).encode("utf-8"),
    )


# Models whose Converse requests accept a cachePoint (Bedrock's prompt-caching list, as much of it
# as vaultctx uses); a cachePoint sent to any other model is a ValidationException.
_CACHING_MODELS = re.compile(
    r"claude-(opus|sonnet|haiku)-[4-9]|claude-3-7-sonnet|nova-(micro|lite|pro|premier)"
)
MAX_CACHE_POINTS = 4


def cache_point_problem(model: str, body: dict[str, Any]) -> str | None:
    """Why Bedrock would refuse this request's cache points, or None (also for none at all)."""
    blocks = [*body.get("system", [])]
    for message in body.get("messages", []):
        blocks += message.get("content", [])
    points = [block for block in blocks if isinstance(block, dict) and "cachePoint" in block]
    if not points:
        return None
    if not _CACHING_MODELS.search(model):
        return f"The model {model} does not support prompt caching (cachePoint)."
    if len(points) > MAX_CACHE_POINTS:
        return f"A request may have at most {MAX_CACHE_POINTS} cache points, got {len(points)}."
    system = body.get("system", [])
    if system and "cachePoint" in system[0]:
        return "A cachePoint cannot be the first system block."
    return None


def aws_error(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> HttpError:
    """A rest-json error as Bedrock sends it."""
    return HttpError(
        status,
        {"message": message},
        {
            "x-amzn-ErrorType": f"{code}:http://internal.amazon.com/coral/com.amazon.bedrock/",
            "x-amzn-RequestId": "00000000-0000-4000-8000-000000000000",
            **(headers or {}),
        },
    )


@dataclass(frozen=True)
class FoundationModel:
    """An entry of ``ListFoundationModels``; ``inference`` says how it may be invoked."""

    model_id: str
    provider: str = "Anthropic"
    input_modalities: tuple[str, ...] = ("TEXT", "IMAGE")
    output_modalities: tuple[str, ...] = ("TEXT",)
    inference: tuple[str, ...] = ("INFERENCE_PROFILE",)

    def as_json(self, region: str) -> dict[str, Any]:
        return {
            "modelArn": f"arn:aws:bedrock:{region}::foundation-model/{self.model_id}",
            "modelId": self.model_id,
            "modelName": self.model_id.split(".", 1)[-1],
            "providerName": self.provider,
            "inputModalities": list(self.input_modalities),
            "outputModalities": list(self.output_modalities),
            "responseStreamingSupported": "EMBEDDING" not in self.output_modalities,
            "customizationsSupported": [],
            "inferenceTypesSupported": list(self.inference),
            "modelLifecycle": {"status": "ACTIVE"},
        }


DEFAULT_MODELS = (
    FoundationModel("anthropic.claude-sonnet-4-5-20250929-v1:0"),
    FoundationModel(
        "amazon.nova-lite-v1:0",
        "Amazon",
        ("TEXT", "IMAGE", "VIDEO"),
        inference=("ON_DEMAND", "INFERENCE_PROFILE"),
    ),
    FoundationModel(
        "amazon.titan-embed-text-v2:0", "Amazon", ("TEXT",), ("EMBEDDING",), ("ON_DEMAND",)
    ),
    FoundationModel("cohere.embed-english-v3", "Cohere", ("TEXT",), ("EMBEDDING",), ("ON_DEMAND",)),
)


class BedrockFake(FakeServer):
    """Bedrock Runtime plus ``GET /foundation-models`` and ``GET /inference-profiles``.

    Each recorded request keeps its ``Authorization`` header: ``AWS4-HMAC-SHA256
    Credential=<key id>/...`` when signed with keys, ``Bearer <token>`` with a Bedrock API key.
    botocore sends a bearer token only over HTTPS, so that needs ``tls=True`` (and the client
    trusting ``ca_file``, e.g. through ``AWS_CA_BUNDLE``).
    """

    name: ClassVar[str] = "bedrock"

    def __init__(
        self,
        *,
        region: str = "us-east-1",
        models: tuple[FoundationModel, ...] = DEFAULT_MODELS,
        profile_page_size: int = 100,
        tls: bool = False,
    ) -> None:
        super().__init__(tls=tls)
        self.region = region
        self.models = models
        self.profile_page_size = profile_page_size
        self._counter = 0

    # -- errors shaped like the real ones

    @staticmethod
    def auth_error() -> HttpError:
        """What a SigV4 request with an unknown access key gets."""
        return aws_error(
            403,
            "UnrecognizedClientException",
            "The security token included in the request is invalid.",
        )

    @staticmethod
    def access_denied(
        message: str = "You don't have access to the model with the specified model ID.",
    ) -> HttpError:
        return aws_error(403, "AccessDeniedException", message)

    @staticmethod
    def rate_limited(retry_after: int | None = None) -> HttpError:
        """Bedrock sends no Retry-After of its own; pass one to test a client that reads it."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return aws_error(
            429,
            "ThrottlingException",
            "Too many requests, please wait before trying again.",
            headers,
        )

    @staticmethod
    def server_error(status: int = 500) -> HttpError:
        if status == 503:
            return aws_error(
                503,
                "ServiceUnavailableException",
                "Bedrock is unable to process your request.",
            )
        return aws_error(
            status,
            "InternalServerException",
            "The server encountered an internal error while processing the request.",
        )

    # -- routing

    def handle(self, request: RecordedRequest) -> Response:
        body: dict[str, Any] = request.json if isinstance(request.json, dict) else {}
        if request.method == "POST" and (match := _RUNTIME.match(request.path)):
            action = match["action"]
            if action == "invoke":
                return self._invoke(match["model"], body)
            refused = cache_point_problem(match["model"], body)
            if refused is not None:
                return http_error_body(aws_error(400, "ValidationException", refused))
            return self._converse(match["model"], stream=action == "converse-stream")
        if request.method == "GET" and request.path == "/foundation-models":
            return self._foundation_models(request)
        if request.method == "GET" and request.path == "/inference-profiles":
            return self._inference_profiles(request)
        return self.not_found(request)

    # -- converse

    def _converse(self, model: str, *, stream: bool) -> Response:
        reply = self.next_reply("chat") or Answer()
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        if not isinstance(reply, Answer):
            raise TypeError(f"a converse request can't answer with {reply!r}")
        self._counter += 1
        headers = {"x-amzn-RequestId": f"00000000-0000-4000-8000-{self._counter:012d}"}
        stop_reason = "tool_use" if reply.tool_calls else "end_turn"
        usage = {
            "inputTokens": reply.usage.input_tokens,
            "outputTokens": reply.usage.output_tokens,
            "totalTokens": reply.usage.total_tokens,
        }
        if not stream:
            content: list[dict[str, Any]] = [{"text": reply.full_text}] if reply.full_text else []
            content += [
                {
                    "toolUse": {
                        "toolUseId": call.id or f"tooluse_fake{index}",
                        "name": call.name,
                        "input": call.args_object,
                    }
                }
                for index, call in enumerate(reply.tool_calls)
            ]
            payload = {
                "output": {"message": {"role": "assistant", "content": content}},
                "stopReason": stop_reason,
                "usage": usage,
                "metrics": {"latencyMs": 321},
            }
            return json_body(200, payload, headers, reply.delay)
        frames = [event("messageStart", {"role": "assistant"})]
        block = 0
        if reply.chunks:
            frames += [
                event("contentBlockDelta", {"delta": {"text": text}, "contentBlockIndex": block})
                for text in reply.chunks
            ]
            frames.append(event("contentBlockStop", {"contentBlockIndex": block}))
            block += 1
        for index, call in enumerate(reply.tool_calls):
            start = {"toolUse": {"toolUseId": call.id or f"tooluse_fake{index}", "name": call.name}}
            frames.append(event("contentBlockStart", {"start": start, "contentBlockIndex": block}))
            frames += [
                event(
                    "contentBlockDelta",
                    {"delta": {"toolUse": {"input": part}}, "contentBlockIndex": block},
                )
                for part in call.fragments()
            ]
            frames.append(event("contentBlockStop", {"contentBlockIndex": block}))
            block += 1
        frames.append(event("messageStop", {"stopReason": stop_reason}))
        frames.append(event("metadata", {"usage": usage, "metrics": {"latencyMs": 321}}))
        error_frame = None
        if isinstance(reply.fault, StreamError):
            error_frame = exception_event(reply.fault.code, reply.fault.message)
        return Stream(
            frames,
            EVENT_STREAM,
            headers,
            delay=reply.delay,
            fault=reply.fault,
            error_frame=error_frame,
        )

    # -- invoke (embeddings)

    def _invoke(self, model: str, body: dict[str, Any]) -> Response:
        reply = self.next_reply("embed")
        if isinstance(reply, HttpError):
            return http_error_body(reply)
        if "texts" in body:  # Cohere Embed
            texts = [str(text) for text in body["texts"]]
        elif "inputText" in body:  # Titan Text Embeddings
            texts = [str(body["inputText"])]
        else:
            return http_error_body(
                aws_error(400, "ValidationException", "Malformed input request, please reformat.")
            )
        dim = int(body.get("dimensions") or self.embedding_dim)
        vectors = (
            [list(v) for v in reply.vectors]
            if isinstance(reply, Embeddings)
            else [fake_vector(text, dim) for text in texts]
        )
        tokens = sum(len(text.split()) for text in texts)
        headers = {
            "X-Amzn-Bedrock-Input-Token-Count": str(tokens),
            "X-Amzn-Bedrock-Invocation-Latency": "42",
        }
        if "texts" in body:
            payload: dict[str, Any] = {
                "id": "fake-embed-id",
                "embeddings": vectors,
                "texts": texts,
                "response_type": "embeddings_floats",
            }
        else:
            payload = {
                "embedding": vectors[0],
                "embeddingsByType": {"float": vectors[0]},
                "inputTextTokenCount": tokens,
            }
        return Body(200, json.dumps(payload).encode("utf-8"), headers=headers)

    # -- control plane

    def _foundation_models(self, request: RecordedRequest) -> Response:
        def wanted(model: FoundationModel) -> bool:
            filters = request.query
            return (
                all(p.lower() == model.provider.lower() for p in filters.get("byProvider", []))
                and all(m in model.output_modalities for m in filters.get("byOutputModality", []))
                and all(i in model.inference for i in filters.get("byInferenceType", []))
            )

        summaries = [model.as_json(self.region) for model in self.models if wanted(model)]
        return json_body(200, {"modelSummaries": summaries})

    def _inference_profiles(self, request: RecordedRequest) -> Response:
        profiles = [
            self._profile(geo, model)
            for model in self.models
            if "INFERENCE_PROFILE" in model.inference
            for geo in ("us", "global")
        ]
        start = int((request.query.get("nextToken") or ["0"])[0] or 0)
        size = int((request.query.get("maxResults") or [str(self.profile_page_size)])[0])
        page: dict[str, Any] = {"inferenceProfileSummaries": profiles[start : start + size]}
        if start + size < len(profiles):
            page["nextToken"] = str(start + size)
        return json_body(200, page)

    def _profile(self, geo: str, model: FoundationModel) -> dict[str, Any]:
        profile_id = f"{geo}.{model.model_id}"
        regions = ["us-east-1", "us-east-2", "us-west-2"] if geo == "us" else [self.region]
        return {
            "inferenceProfileName": f"{geo.upper()} {model.model_id}",
            "description": f"Routes requests to {model.model_id} in {geo} regions.",
            "createdAt": "2025-01-01T00:00:00Z",
            "updatedAt": "2025-01-01T00:00:00Z",
            "inferenceProfileArn": (
                f"arn:aws:bedrock:{self.region}:123456789012:inference-profile/{profile_id}"
            ),
            "models": [
                {"modelArn": f"arn:aws:bedrock:{region}::foundation-model/{model.model_id}"}
                for region in regions
            ],
            "inferenceProfileId": profile_id,
            "status": "ACTIVE",
            "type": "SYSTEM_DEFINED",
        }
