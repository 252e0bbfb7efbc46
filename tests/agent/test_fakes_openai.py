"""The OpenAI fake against the real ``openai`` client and pydantic-ai's ``OpenAIChatModel``.

If these pass, the fake's bytes are what the SDK parses, and the requests it records are what
OpenAI would receive; the agent's own tests can then script backends with confidence.
"""

from __future__ import annotations

import json
import time

import anyio
import openai
import pytest
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelServerError,
)
from pydantic_ai.messages import FunctionToolCallEvent, PartDeltaEvent, TextPartDelta
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIChatModelSettings
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings

from tests.agent.fakes import (
    DEFAULT_TEXT,
    Answer,
    Cut,
    Embeddings,
    Garbage,
    OpenAIFake,
    StreamError,
    ToolCall,
    Usage,
)
from tests.agent.fakes.base import TINY_PNG as PNG
from tests.agent.fakes.base import fake_vector

MESSAGES: list[openai.types.chat.ChatCompletionMessageParam] = [
    {"role": "user", "content": "What do my notes say about SQLite?"}
]


def client(fake: OpenAIFake, **options: object) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{fake.base_url}/v1", api_key="k", max_retries=0, **options)  # type: ignore[arg-type]


def agent_for(fake: OpenAIFake, model_name: str = "gpt-5.2") -> Agent[None, str]:
    provider = OpenAIProvider(base_url=f"{fake.base_url}/v1", api_key="sk-test-key")
    return Agent(OpenAIChatModel(model_name, provider=provider), model_settings={"max_retries": 0})


# --------------------------------------------------------------------------- the raw client


def test_default_answer_needs_no_script(openai_fake: OpenAIFake) -> None:
    completion = client(openai_fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

    assert completion.choices[0].message.content == DEFAULT_TEXT
    assert completion.choices[0].finish_reason == "stop"
    request = openai_fake.last("/v1/chat/completions")
    assert request.method == "POST"
    assert request.header("authorization") == "Bearer k"
    assert request.json["messages"] == MESSAGES
    assert request.json["model"] == "gpt-fake"


def test_stream_reassembles_chunks_and_reports_usage(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["Notes ", "say ", "WAL."], usage=Usage(42, 3)))

    stream = client(openai_fake).chat.completions.create(
        model="gpt-fake", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Notes say WAL."
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (42, 3)
    assert openai_fake.last().json["stream_options"] == {"include_usage": True}


def test_stream_without_include_usage_sends_no_usage_chunk(openai_fake: OpenAIFake) -> None:
    chunks = list(
        client(openai_fake).chat.completions.create(
            model="gpt-fake", messages=MESSAGES, stream=True
        )
    )

    assert all(chunk.choices for chunk in chunks)
    assert all(chunk.usage is None for chunk in chunks)


def test_streamed_tool_call_arrives_in_fragments(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(tool_calls=[ToolCall("search", {"query": "sqlite wal"}, split=4)]))

    chunks = list(
        client(openai_fake).chat.completions.create(
            model="gpt-fake", messages=MESSAGES, stream=True
        )
    )

    deltas = [c.choices[0].delta.tool_calls[0] for c in chunks if c.choices[0].delta.tool_calls]
    assert len(deltas) == 5  # the id and name first, then four argument fragments
    assert deltas[0].id == "call_fake_0"
    assert deltas[0].function is not None and deltas[0].function.name == "search"
    arguments = "".join((d.function.arguments or "") for d in deltas if d.function)
    assert json.loads(arguments) == {"query": "sqlite wal"}
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_non_streamed_tool_call(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(tool_calls=[ToolCall("search", {"query": "x"}, id="call_1")]))

    message = client(openai_fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

    choice = message.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert choice.message.tool_calls is not None
    call = choice.message.tool_calls[0]
    assert call.id == "call_1"
    assert call.function.name == "search"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"query": "x"}  # type: ignore[union-attr]


def test_embeddings_default_to_base64_which_the_sdk_decodes(openai_fake: OpenAIFake) -> None:
    result = client(openai_fake).embeddings.create(model="text-embedding-3-small", input=["a", "b"])

    # openai 3.x asks for base64 unless told otherwise, and decodes little-endian float32.
    assert openai_fake.last("/v1/embeddings").json["encoding_format"] == "base64"
    assert [len(item.embedding) for item in result.data] == [8, 8]
    assert result.data[0].embedding == pytest.approx(fake_vector("a", 8), abs=1e-6)


def test_embeddings_as_floats_when_asked(openai_fake: OpenAIFake) -> None:
    openai_fake.queue_embed(Embeddings([[0.25, -0.5, 1.0]]))

    result = client(openai_fake).embeddings.create(
        model="text-embedding-3-small", input="one", encoding_format="float"
    )

    assert openai_fake.last().json["encoding_format"] == "float"
    assert result.data[0].embedding == [0.25, -0.5, 1.0]


def test_models_list(openai_fake: OpenAIFake) -> None:
    ids = [model.id for model in client(openai_fake).models.list()]

    assert ids == ["gpt-fake", "gpt-fake-mini"]
    assert openai_fake.last().method == "GET"


def test_wrong_key_is_an_authentication_error() -> None:
    with OpenAIFake(require_key="right-key") as fake:
        with pytest.raises(openai.AuthenticationError) as raised:
            client(fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

        assert raised.value.status_code == 401
        assert raised.value.code == "invalid_api_key"
        ok = openai.OpenAI(base_url=f"{fake.base_url}/v1", api_key="right-key", max_retries=0)
        assert ok.chat.completions.create(model="gpt-fake", messages=MESSAGES).choices


def test_rate_limit_shows_retry_after(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(OpenAIFake.rate_limited(retry_after=7))

    with pytest.raises(openai.RateLimitError) as raised:
        client(openai_fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

    assert raised.value.response.headers["retry-after"] == "7"
    assert raised.value.code == "rate_limit_exceeded"
    assert len(openai_fake.requests) == 1  # max_retries=0: the client did not retry


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors(openai_fake: OpenAIFake, status: int) -> None:
    openai_fake.queue(OpenAIFake.server_error(status))

    with pytest.raises(openai.InternalServerError) as raised:
        client(openai_fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

    assert raised.value.status_code == status


def test_cut_stream_raises_instead_of_ending_quietly(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["one ", "two ", "three"], fault=Cut(after=2, partial=5)))
    received: list[str] = []

    with pytest.raises(openai.APIConnectionError):
        for chunk in client(openai_fake).chat.completions.create(
            model="gpt-fake", messages=MESSAGES, stream=True
        ):
            received.append(chunk.choices[0].delta.content or "")

    assert "".join(received) == "one "


def test_invalid_json_event_raises(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["a", "b"], fault=Garbage(after=2)))

    with pytest.raises(json.JSONDecodeError):
        list(
            client(openai_fake).chat.completions.create(
                model="gpt-fake", messages=MESSAGES, stream=True
            )
        )


def test_non_sse_garbage_line_is_ignored_by_the_sdk(openai_fake: OpenAIFake) -> None:
    # An SSE decoder skips lines it has no field for; the answer still arrives whole.
    openai_fake.queue(Answer(["a", "b"], fault=Garbage(after=2, data=b"garbage\n: comment\n\n")))

    chunks = list(
        client(openai_fake).chat.completions.create(
            model="gpt-fake", messages=MESSAGES, stream=True
        )
    )

    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "ab"


def test_in_stream_error_event_is_an_api_error(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["a", "b"], fault=StreamError(after=2, code="server_error")))

    with pytest.raises(openai.APIError) as raised:
        list(
            client(openai_fake).chat.completions.create(
                model="gpt-fake", messages=MESSAGES, stream=True
            )
        )

    assert raised.value.message == "The fake failed mid-stream."


def test_slow_first_byte_times_out_the_client(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(delay=60))

    with pytest.raises(openai.APITimeoutError):
        client(openai_fake, timeout=0.5).chat.completions.create(
            model="gpt-fake", messages=MESSAGES
        )


def test_slow_first_byte_within_the_timeout_still_answers(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer("late", delay=0.3))
    started = time.monotonic()

    completion = client(openai_fake).chat.completions.create(model="gpt-fake", messages=MESSAGES)

    assert completion.choices[0].message.content == "late"
    assert time.monotonic() - started >= 0.3


@pytest.mark.anyio
async def test_async_client_streams(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["as", "ync"]))
    async_client = openai.AsyncOpenAI(
        base_url=f"{openai_fake.base_url}/v1", api_key="k", max_retries=0
    )

    stream = await async_client.chat.completions.create(
        model="gpt-fake", messages=MESSAGES, stream=True
    )
    text = "".join([chunk.choices[0].delta.content or "" async for chunk in stream])

    assert text == "async"
    await async_client.close()


# --------------------------------------------------------------------------- pydantic-ai


@pytest.mark.anyio
async def test_agent_streams_text_and_usage(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["Your notes ", "mention ", "WAL mode."], usage=Usage(120, 9)))

    async with agent_for(openai_fake).run_stream("What about SQLite?") as result:
        deltas = [delta async for delta in result.stream_text(delta=True, debounce_by=None)]
    usage = result.usage

    assert "".join(deltas) == "Your notes mention WAL mode."
    assert (usage.input_tokens, usage.output_tokens, usage.requests) == (120, 9, 1)
    request = openai_fake.last("/v1/chat/completions")
    assert request.header("authorization") == "Bearer sk-test-key"
    assert request.json["stream"] is True
    assert request.json["stream_options"] == {"include_usage": True}
    assert request.json["messages"][-1] == {"role": "user", "content": "What about SQLite?"}


@pytest.mark.anyio
async def test_agent_tool_round_trip(openai_fake: OpenAIFake) -> None:
    agent = agent_for(openai_fake)
    seen: list[str] = []

    @agent.tool_plain
    def search_notes(query: str) -> str:
        """Search the vault."""
        seen.append(query)
        return "sqlite.md: use WAL"

    openai_fake.queue(
        Answer(tool_calls=[ToolCall("search_notes", {"query": "sqlite"}, id="call_7", split=3)]),
        Answer(["Use ", "WAL."]),
    )
    async with agent.run_stream("What about SQLite?") as result:
        output = await result.get_output()

    assert output == "Use WAL."
    assert seen == ["sqlite"]
    first, second = openai_fake.requests_to("/chat/completions")
    tool = first.json["tools"][0]["function"]
    assert tool["name"] == "search_notes"
    assert tool["description"] == "Search the vault."
    assert tool["parameters"]["properties"] == {"query": {"type": "string"}}
    assistant, tool_message = second.json["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_7"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"query": "sqlite"}
    assert tool_message == {
        "role": "tool",
        "tool_call_id": "call_7",
        "content": "sqlite.md: use WAL",
    }


@pytest.mark.anyio
async def test_agent_stream_events_show_the_tool_call(openai_fake: OpenAIFake) -> None:
    agent = agent_for(openai_fake)

    @agent.tool_plain
    def search_notes(query: str) -> str:
        return "nothing"

    openai_fake.queue(
        Answer(tool_calls=[ToolCall("search_notes", {"query": "q"})]), Answer(["x", "y"])
    )
    async with agent.run_stream_events("hi") as stream:
        events = [event async for event in stream]

    calls = [e.part for e in events if isinstance(e, FunctionToolCallEvent)]
    assert [(call.tool_name, call.args_as_dict()) for call in calls] == [
        ("search_notes", {"query": "q"})
    ]
    text = [
        e.delta.content_delta
        for e in events
        if isinstance(e, PartDeltaEvent) and isinstance(e.delta, TextPartDelta)
    ]
    assert "y" in "".join(text)


@pytest.mark.anyio
async def test_agent_sends_reasoning_effort(openai_fake: OpenAIFake) -> None:
    agent = agent_for(openai_fake)

    await agent.run("hi", model_settings=OpenAIChatModelSettings(openai_reasoning_effort="low"))
    await agent.run("hi", model_settings=ModelSettings(thinking="high"))
    await agent.run("hi")

    explicit, unified, unset = (r.json for r in openai_fake.requests)
    assert explicit["reasoning_effort"] == "low"
    assert unified["reasoning_effort"] == "high"
    assert "reasoning_effort" not in unset


@pytest.mark.anyio
async def test_agent_sends_image_blocks(openai_fake: OpenAIFake) -> None:
    await agent_for(openai_fake).run(["Describe this", BinaryContent(PNG, media_type="image/png")])

    content = openai_fake.last().json["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "Describe this"}
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.anyio
async def test_agent_auth_error(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(OpenAIFake.auth_error())

    with pytest.raises(ModelAuthenticationError) as raised:
        await agent_for(openai_fake).run("hi")

    assert isinstance(raised.value, ModelHTTPError)
    assert raised.value.status_code == 401


@pytest.mark.anyio
async def test_agent_rate_limit_carries_retry_after(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(OpenAIFake.rate_limited(retry_after=7))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(openai_fake).run_stream("hi") as result:
            await result.get_output()

    assert isinstance(raised.value, ModelHTTPError)
    assert raised.value.status_code == 429
    assert raised.value.retry_after == 7
    assert len(openai_fake.requests) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "error"), [(500, ModelServerError), (503, ModelOverloadedError)]
)
async def test_agent_server_errors(
    openai_fake: OpenAIFake, status: int, error: type[Exception]
) -> None:
    openai_fake.queue(OpenAIFake.server_error(status))

    with pytest.raises(error):
        await agent_for(openai_fake).run("hi")


@pytest.mark.anyio
async def test_agent_cut_stream_raises(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["a", "b", "c"], fault=Cut(after=2)))

    with anyio.fail_after(120), pytest.raises(ModelConnectionError):
        async with agent_for(openai_fake).run_stream("hi") as result:
            await result.get_output()


@pytest.mark.anyio
async def test_agent_malformed_stream_raises(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["a", "b"], fault=Garbage(after=2)))

    with pytest.raises(ModelAPIError, match="decode"):
        async with agent_for(openai_fake).run_stream("hi") as result:
            await result.get_output()


@pytest.mark.anyio
async def test_agent_in_stream_rate_limit(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer(["a", "b"], fault=StreamError(after=2, code="rate_limit_exceeded")))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(openai_fake).run_stream("hi") as result:
            await result.get_output()

    assert raised.value.in_stream
