"""Fixtures: a fresh fake backend per test, so scripts and request logs never leak between tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agent.fakes import BedrockFake, GeminiFake, OllamaFake, OpenAIFake


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def openai_fake() -> Iterator[OpenAIFake]:
    with OpenAIFake() as fake:
        yield fake


@pytest.fixture
def ollama_fake() -> Iterator[OllamaFake]:
    with OllamaFake() as fake:
        yield fake


@pytest.fixture
def gemini_fake() -> Iterator[GeminiFake]:
    with GeminiFake() as fake:
        yield fake


@pytest.fixture
def bedrock_fake() -> Iterator[BedrockFake]:
    with BedrockFake() as fake:
        yield fake
