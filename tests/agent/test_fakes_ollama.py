"""The Ollama fake: pydantic-ai's Ollama model over ``/v1``, and the native ``/api`` endpoints."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelConnectionError, ModelServerError
from pydantic_ai.models.ollama import OllamaModel as PydanticOllamaModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.ollama import OllamaProvider

from tests.agent.fakes import Answer, Cut, Embeddings, OllamaFake, OllamaModel, ToolCall, Usage
from tests.agent.fakes.base import fake_vector


def agent_for(fake: OllamaFake, model_name: str = "llama3.2") -> Agent[None, str]:
    provider = OllamaProvider(base_url=f"{fake.base_url}/v1")
    return Agent(
        PydanticOllamaModel(model_name, provider=provider), model_settings={"max_retries": 0}
    )


@pytest.mark.anyio
async def test_agent_streams_over_the_openai_compatible_api(ollama_fake: OllamaFake) -> None:
    ollama_fake.queue(Answer(["Local ", "answer."], usage=Usage(30, 4)))

    async with agent_for(ollama_fake).run_stream("hi") as result:
        text = "".join([d async for d in result.stream_text(delta=True, debounce_by=None)])

    assert text == "Local answer."
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 4)
    request = ollama_fake.last()
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "llama3.2"
    # With no key, the provider still sends one: the openai client refuses to run without it.
    assert request.header("authorization") == "Bearer api-key-not-set"


@pytest.mark.anyio
async def test_openai_chat_model_with_the_ollama_provider_calls_tools(
    ollama_fake: OllamaFake,
) -> None:
    provider = OllamaProvider(base_url=f"{ollama_fake.base_url}/v1", api_key="ollama-key")
    agent = Agent(OpenAIChatModel("qwen3:8b", provider=provider), model_settings={"max_retries": 0})
    seen: list[int] = []

    @agent.tool_plain
    def count_notes(folder: str, limit: int) -> int:
        seen.append(limit)
        return 3

    ollama_fake.queue(
        Answer(tool_calls=[ToolCall("count_notes", {"folder": "inbox", "limit": 5}, split=2)]),
        Answer("Three notes."),
    )
    result = await agent.run("How many notes in my inbox?")

    assert result.output == "Three notes."
    assert seen == [5]
    first, second = ollama_fake.requests
    assert first.header("authorization") == "Bearer ollama-key"
    # Ollama's profile turns strict tool schemas off: the server doesn't support them.
    assert "strict" not in first.json["tools"][0]["function"]
    tool_message = second.json["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "3"


@pytest.mark.anyio
async def test_agent_server_error_and_cut_stream(ollama_fake: OllamaFake) -> None:
    ollama_fake.queue(OllamaFake.server_error(500), Answer(["a", "b"], fault=Cut(after=1)))

    with pytest.raises(ModelServerError):
        await agent_for(ollama_fake).run("hi")
    with pytest.raises(ModelConnectionError):
        async with agent_for(ollama_fake).run_stream("hi") as result:
            await result.get_output()


def test_tags_list_the_pulled_models(ollama_fake: OllamaFake) -> None:
    response = httpx.get(f"{ollama_fake.base_url}/api/tags")

    assert response.status_code == 200
    names = [model["name"] for model in response.json()["models"]]
    assert names == ["llama3.2:latest", "qwen3:8b", "nomic-embed-text:latest"]
    assert response.json()["models"][0]["details"]["family"] == "llama"


@pytest.mark.parametrize(
    ("model", "capabilities"),
    [
        ("llama3.2", ["completion", "tools"]),
        ("qwen3:8b", ["completion", "tools", "thinking"]),
        ("nomic-embed-text:latest", ["embedding"]),
    ],
)
def test_show_reports_capabilities(
    ollama_fake: OllamaFake, model: str, capabilities: list[str]
) -> None:
    response = httpx.post(f"{ollama_fake.base_url}/api/show", json={"model": model})

    assert response.status_code == 200
    assert response.json()["capabilities"] == capabilities
    assert ollama_fake.last("/api/show").json == {"model": model}


def test_show_unknown_model_is_a_404_with_a_string_error(ollama_fake: OllamaFake) -> None:
    response = httpx.post(f"{ollama_fake.base_url}/api/show", json={"model": "nope"})

    assert response.status_code == 404
    assert response.json() == {"error": "model 'nope' not found"}


def test_native_embed(ollama_fake: OllamaFake) -> None:
    response = httpx.post(
        f"{ollama_fake.base_url}/api/embed", json={"model": "nomic-embed-text", "input": ["a", "b"]}
    )

    assert response.status_code == 200
    assert response.json()["embeddings"] == [fake_vector("a", 8), fake_vector("b", 8)]


def test_native_embed_scripted_and_failing(ollama_fake: OllamaFake) -> None:
    ollama_fake.queue_embed(Embeddings([[1.0, 0.0]]), OllamaFake.native_error(500, "out of memory"))
    url = f"{ollama_fake.base_url}/api/embed"

    first = httpx.post(url, json={"model": "nomic-embed-text", "input": "x"})
    second = httpx.post(url, json={"model": "nomic-embed-text", "input": "x"})

    assert first.json()["embeddings"] == [[1.0, 0.0]]
    assert (second.status_code, second.json()) == (500, {"error": "out of memory"})


def test_openai_client_lists_and_embeds_under_v1() -> None:
    with OllamaFake(pulled=(OllamaModel("all-minilm", capabilities=("embedding",)),)) as fake:
        client = openai.OpenAI(base_url=f"{fake.base_url}/v1", api_key="ollama", max_retries=0)

        assert [model.id for model in client.models.list()] == ["all-minilm:latest"]
        vector = client.embeddings.create(model="all-minilm", input="hello").data[0].embedding
        assert vector == pytest.approx(fake_vector("hello", 8), abs=1e-6)
        assert json.loads(fake.last().body)["input"] == "hello"
