"""Fake LLM backends at the HTTP boundary, for tests that must not reach the paid APIs.

Each fake is a real HTTP server on 127.0.0.1 speaking one provider's wire protocol, so the real
client libraries (and pydantic-ai's models over them) run unchanged against it.
"""

from .base import (
    DEFAULT_TEXT,
    Answer,
    Cut,
    Embeddings,
    FakeServer,
    Garbage,
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
    "HttpError",
    "OllamaFake",
    "OllamaModel",
    "OpenAIFake",
    "RecordedRequest",
    "StreamError",
    "ToolCall",
    "Usage",
]
