"""Fixtures for the agent's tests.

``openai_fake``, ``ollama_fake``, ``gemini_fake`` and ``bedrock_fake``: a fresh fake backend per
test (tests/agent/fakes), so scripts and request logs never leak between tests.

``tiny_openai`` and ``tiny_gemini`` are local HTTP servers answering one non-streamed reply and
keeping every JSON request body; ``tiny_bedrock`` is a boto3 client whose Converse calls a
``Stubber`` answers, keeping the parameters botocore was about to serialise.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.agent.cli_support import Indexed, indexed_example
from tests.agent.fakes import BedrockFake, GeminiFake, OllamaFake, OpenAIFake

OPENAI_REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "test",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "ok"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}

GEMINI_REPLY = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"},
    ],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
    "modelVersion": "test",
}

BEDROCK_REPLY = {
    "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    "metrics": {"latencyMs": 1},
}


Content = str | Sequence[Any]
Settings = dict[str, Any]


def request(model: Any, content: Content, settings: Settings | None) -> None:
    """One non-streamed request to ``model`` with ``content`` as the user prompt."""
    from pydantic_ai.direct import model_request
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    message = ModelRequest(parts=[UserPromptPart(content=content)])
    asyncio.run(model_request(model, [message], model_settings=settings))  # type: ignore[arg-type]


@dataclass
class TinyServer:
    """A server's base URL and the JSON bodies it received, in order."""

    url: str
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def send_openai(
        self, model: str, content: Content = "hi", settings: Settings | None = None
    ) -> dict[str, Any]:
        """Ask ``model`` through pydantic-ai's OpenAI Chat model; the body the server got."""
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        provider = OpenAIProvider(base_url=f"{self.url}/v1", api_key="test")
        request(OpenAIChatModel(model, provider=provider), content, settings)
        return self.bodies[-1]

    def send_gemini(
        self, model: str, content: Content = "hi", settings: Settings | None = None
    ) -> dict[str, Any]:
        """Ask ``model`` through pydantic-ai's Google model; the body the server got."""
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        provider = GoogleProvider(api_key="test", base_url=self.url)
        request(GoogleModel(model, provider=provider), content, settings)
        return self.bodies[-1]


def _serve(reply: dict[str, Any]) -> Iterator[TinyServer]:
    """Answer every POST with ``reply``, recording the body; stopped when the test ends."""
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            bodies.append(json.loads(self.rfile.read(length)))
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield TinyServer(f"http://127.0.0.1:{server.server_address[1]}", bodies)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def tiny_openai() -> Iterator[TinyServer]:
    """An OpenAI Chat Completions endpoint; use ``url + '/v1'`` as the base URL."""
    yield from _serve(OPENAI_REPLY)


@pytest.fixture
def tiny_gemini() -> Iterator[TinyServer]:
    """A Gemini ``generateContent`` endpoint; use ``url`` as the base URL."""
    yield from _serve(GEMINI_REPLY)


@dataclass
class TinyBedrock:
    """A stubbed ``bedrock-runtime`` client and the Converse parameters it was called with."""

    client: Any
    calls: list[dict[str, Any]] = field(default_factory=list)

    def send(
        self, model: str, content: Content = "hi", settings: Settings | None = None
    ) -> dict[str, Any]:
        """Ask ``model`` through pydantic-ai's Bedrock Converse model; the Converse parameters."""
        from pydantic_ai.models.bedrock import BedrockConverseModel
        from pydantic_ai.providers.bedrock import BedrockProvider

        provider = BedrockProvider(bedrock_client=self.client)
        request(BedrockConverseModel(model, provider=provider), content, settings)
        return self.calls[-1]


@pytest.fixture
def tiny_bedrock() -> Iterator[TinyBedrock]:
    """A boto3 Bedrock Runtime client whose Converse calls are answered by a ``Stubber``."""
    import boto3
    from botocore.stub import Stubber

    client = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    tiny = TinyBedrock(client)

    def record(params: dict[str, Any], **_: Any) -> None:
        tiny.calls.append(params)

    client.meta.events.register("provide-client-params.bedrock-runtime.Converse", record)
    with Stubber(client) as stubber:
        for _ in range(3):  # one per request a test makes
            stubber.add_response("converse", BEDROCK_REPLY)
        yield tiny


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


@pytest.fixture(scope="package")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    return indexed_example(tmp_path_factory)


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test's conversation store and undo ledger in its own data dir, never the user's."""
    import platformdirs

    folder = tmp_path / "user-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name: str(folder / name))
    return folder / "vaultctx"
