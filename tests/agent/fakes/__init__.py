"""Fake LLM backends at the HTTP boundary, for tests that must not reach the paid APIs.

Each fake is a real HTTP server on 127.0.0.1 speaking one provider's wire protocol, so the real
client libraries (and pydantic-ai's models over them) run unchanged against it::

    with OpenAIFake() as fake:  # or the openai_fake fixture; also Ollama-, Gemini-, BedrockFake
        fake.queue(
            Answer(tool_calls=[ToolCall("search_notes", {"query": "wal"}, split=3)]),
            Answer(["Use ", "WAL."], usage=Usage(120, 9)),
            OpenAIFake.rate_limited(retry_after=7),            # the provider's real 429
            Answer(["a", "b", "c"], fault=Cut(after=2)),       # connection drops mid-answer
            Answer("late", delay=5),                           # slow first byte
        )
        provider = OpenAIProvider(base_url=fake.base_url + "/v1", api_key="k")
        ...
        fake.last("/chat/completions").json["tools"]        # what the backend received
        fake.last().header("authorization")                  # "Bearer k"

Unscripted model turns answer ``DEFAULT_TEXT``; embeddings without a script are derived from
the text (``fake_vector``). ``queue`` feeds model turns, ``queue_embed`` embedding requests.
"""

from .base import (
    DEFAULT_TEXT,
    Answer,
    Cut,
    Embeddings,
    FakeServer,
    Garbage,
    Hold,
    HttpError,
    RecordedRequest,
    StreamError,
    ToolCall,
    Usage,
)
from .bedrock_fake import BedrockFake, FoundationModel
from .gemini_fake import GeminiFake, GeminiModel
from .ollama_fake import OllamaFake, OllamaModel
from .openai_fake import OpenAIFake

__all__ = [
    "DEFAULT_TEXT",
    "Answer",
    "BedrockFake",
    "Cut",
    "Embeddings",
    "FakeServer",
    "FoundationModel",
    "Garbage",
    "GeminiFake",
    "GeminiModel",
    "Hold",
    "HttpError",
    "OllamaFake",
    "OllamaModel",
    "OpenAIFake",
    "RecordedRequest",
    "StreamError",
    "ToolCall",
    "Usage",
]
