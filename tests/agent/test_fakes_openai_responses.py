"""The OpenAI fake's Responses API (``/v1/responses``) against the real ``openai`` client and
pydantic-ai's ``OpenAIResponsesModel``, the sibling of test_fakes_openai.py.

If these pass, the fake's events are what the SDK parses and the requests it records are what
OpenAI would receive, so the agent's gpt-5.6 tests (tools with reasoning) can trust it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAuthenticationError, ModelRateLimitError
from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.agent.fakes import DEFAULT_TEXT, Answer, OpenAIFake, ToolCall, Usage


def client(fake: OpenAIFake) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{fake.base_url}/v1", api_key="k", max_retries=0)


def agent_for(fake: OpenAIFake, model_name: str = "gpt-5.6") -> Agent[None, str]:
    provider = OpenAIProvider(base_url=f"{fake.base_url}/v1", api_key="sk-test-key")
    return Agent(OpenAIResponsesModel(model_name, provider=provider))


def test_a_whole_response(openai_fake: OpenAIFake) -> None:
    response = client(openai_fake).responses.create(model="gpt-5.6", input="What is WAL?")
    assert response.output_text == DEFAULT_TEXT
    assert response.status == "completed"
    assert openai_fake.last("/v1/responses").json["input"] == "What is WAL?"


def test_a_streamed_answer_is_events_the_sdk_types(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["Notes ", "say ", "WAL."], usage=Usage(42, 3)))

    events = list(
        client(openai_fake).responses.create(model="gpt-5.6", input="What is WAL?", stream=True)
    )

    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))
    deltas = [
        e.delta for e in events if isinstance(e, openai.types.responses.ResponseTextDeltaEvent)
    ]
    assert deltas == ["Notes ", "say ", "WAL."]
    completed = events[-1]
    assert isinstance(completed, openai.types.responses.ResponseCompletedEvent)
    assert completed.response.output_text == "Notes say WAL."
    assert completed.response.usage is not None
    assert (completed.response.usage.input_tokens, completed.response.usage.output_tokens) == (
        42,
        3,
    )


def test_a_streamed_call_arrives_in_fragments(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(tool_calls=[ToolCall("search", {"query": "sqlite wal"}, split=4)]))

    events = list(client(openai_fake).responses.create(model="gpt-5.6", input="x", stream=True))

    fragments = [
        e.delta
        for e in events
        if isinstance(e, openai.types.responses.ResponseFunctionCallArgumentsDeltaEvent)
    ]
    assert len(fragments) == 4
    assert json.loads("".join(fragments)) == {"query": "sqlite wal"}
    completed = events[-1]
    assert isinstance(completed, openai.types.responses.ResponseCompletedEvent)
    [call] = completed.response.output
    assert isinstance(call, openai.types.responses.ResponseFunctionToolCall)
    assert (call.name, call.call_id) == ("search", "call_fake_0")


def search_notes(query: str) -> str:
    """Search the notes."""
    return f"found: {query}"


def run_with_tool(fake: OpenAIFake, settings: dict[str, Any]) -> tuple[str, list[str]]:
    agent = agent_for(fake)
    agent.tool_plain(search_notes)
    deltas: list[str] = []

    async def run() -> str:
        async with agent.iter("Where is WAL?", model_settings=settings) as running:  # type: ignore[arg-type]
            async for node in running:
                if Agent.is_model_request_node(node):
                    async with node.stream(running.ctx) as stream:
                        async for event in stream:
                            if isinstance(event, PartStartEvent) and isinstance(
                                event.part, TextPart
                            ):
                                deltas.append(event.part.content)
                            elif isinstance(event, PartDeltaEvent) and isinstance(
                                event.delta, TextPartDelta
                            ):
                                deltas.append(event.delta.content_delta)
        assert running.result is not None
        return running.result.output

    return asyncio.run(run()), deltas


def test_pydantic_ai_calls_a_tool_and_hands_the_reasoning_back(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(
        Answer(tool_calls=[ToolCall("search_notes", {"query": "wal"}, split=3)]),
        Answer(["Use ", "WAL."], usage=Usage(120, 9)),
    )

    output, deltas = run_with_tool(openai_fake, {"openai_reasoning_effort": "max"})

    assert output == "Use WAL." and deltas == ["Use ", "WAL."]
    first, second = [r.json for r in openai_fake.requests_to("/v1/responses")]
    assert first["reasoning"]["effort"] == "max" and first["stream"] is True
    assert [tool["name"] for tool in first["tools"]] == ["search_notes"]
    items = {item.get("type"): item for item in second["input"] if isinstance(item, dict)}
    # The model's reasoning goes back with the call it led to, and the tool's result after it.
    assert items["reasoning"]["encrypted_content"] == "gAAAAfake-reasoning-1"
    assert items["function_call"]["call_id"] == "call_fake_0"
    assert items["function_call_output"]["output"] == "found: wal"


def test_errors_are_pydantic_ais_categories(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(OpenAIFake.rate_limited(retry_after=7), OpenAIFake.auth_error())
    agent = agent_for(openai_fake)
    settings: Any = {"max_retries": 0}
    with pytest.raises(ModelRateLimitError):
        agent.run_sync("hi", model_settings=settings)
    with pytest.raises(ModelAuthenticationError):
        agent.run_sync("hi", model_settings=settings)
