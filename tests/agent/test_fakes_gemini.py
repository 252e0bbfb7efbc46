"""The Gemini fake against ``google.genai.Client`` and pydantic-ai's ``GoogleModel``."""

from __future__ import annotations

import base64

import anyio
import httpx
import pytest
from google import genai
from google.genai import errors, types
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelOverloadedError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelServerError,
)
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.settings import ModelSettings

from tests.agent.fakes import (
    DEFAULT_TEXT,
    Answer,
    Cut,
    Embeddings,
    Garbage,
    GeminiFake,
    StreamError,
    ToolCall,
    Usage,
)
from tests.agent.fakes.base import TINY_PNG as PNG
from tests.agent.fakes.base import fake_vector

MODEL = "gemini-2.5-flash"


def client(
    fake: GeminiFake, key: str = "gemini-key", timeout_ms: int | None = None
) -> genai.Client:
    # No retry_options: google-genai then makes exactly one attempt.
    options = types.HttpOptions(base_url=fake.base_url, timeout=timeout_ms)
    return genai.Client(api_key=key, http_options=options)


def agent_for(fake: GeminiFake, key: str = "gemini-key") -> Agent[None, str]:
    provider = GoogleProvider(api_key=key, base_url=fake.base_url)
    return Agent(GoogleModel(MODEL, provider=provider), model_settings={"max_retries": 0})


# --------------------------------------------------------------------------- the raw client


def test_generate_content_default_answer_and_key_header(gemini_fake: GeminiFake) -> None:
    genai_client = client(gemini_fake)
    response = genai_client.models.generate_content(model=MODEL, contents="hi")

    assert response.text == DEFAULT_TEXT
    assert response.usage_metadata is not None
    assert response.usage_metadata.prompt_token_count == 11
    request = gemini_fake.last()
    assert request.path == f"/v1beta/models/{MODEL}:generateContent"
    assert request.header("x-goog-api-key") == "gemini-key"
    assert request.json["contents"] == [{"parts": [{"text": "hi"}], "role": "user"}]


def test_stream_is_sse_with_cumulative_usage(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["Notes ", "say ", "WAL."], usage=Usage(40, 9)))

    genai_client = client(gemini_fake)
    chunks = list(genai_client.models.generate_content_stream(model=MODEL, contents="hi"))

    assert "".join(chunk.text or "" for chunk in chunks) == "Notes say WAL."
    final = chunks[-1]
    assert final.candidates is not None and final.candidates[0].finish_reason == "STOP"
    assert final.usage_metadata is not None
    assert (
        final.usage_metadata.prompt_token_count,
        final.usage_metadata.candidates_token_count,
    ) == (
        40,
        9,
    )
    request = gemini_fake.last()
    assert request.path == f"/v1beta/models/{MODEL}:streamGenerateContent"
    assert request.query == {"alt": ["sse"]}


def test_function_call_parts(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(tool_calls=[ToolCall("search", {"query": "wal", "limit": 3})]))

    genai_client = client(gemini_fake)
    response = genai_client.models.generate_content(model=MODEL, contents="hi")

    assert response.function_calls is not None
    call = response.function_calls[0]
    assert (call.name, call.args) == ("search", {"query": "wal", "limit": 3})


def test_embeddings_single_and_batch(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue_embed(Embeddings([[0.5, 0.25], [1.0, 0.0]]))
    genai_client = client(gemini_fake)

    batch = genai_client.models.embed_content(model="gemini-embedding-001", contents=["a", "b"])
    derived = genai_client.models.embed_content(model="gemini-embedding-001", contents="c")

    assert batch.embeddings is not None and derived.embeddings is not None
    assert [e.values for e in batch.embeddings] == [[0.5, 0.25], [1.0, 0.0]]
    assert derived.embeddings[0].values == fake_vector("c", 8)
    request = gemini_fake.requests_to(":batchEmbedContents")[0]
    assert [r["content"]["parts"][0]["text"] for r in request.json["requests"]] == ["a", "b"]
    assert request.json["requests"][0]["model"] == "models/gemini-embedding-001"


def test_models_list_follows_pages() -> None:
    with GeminiFake(page_size=2) as fake:
        genai_client = client(fake)
        names = [model.name for model in genai_client.models.list()]

        assert names == [
            "models/gemini-2.5-flash",
            "models/gemini-2.5-pro",
            "models/gemini-embedding-001",
        ]
        pages = fake.requests_to("/v1beta/models")
        assert len(pages) == 2
        assert pages[1].query["pageToken"] == ["2"]


def test_invalid_key_is_a_client_error() -> None:
    with GeminiFake(require_key="right") as fake:
        with pytest.raises(errors.ClientError) as raised:
            genai_client = client(fake, key="wrong")
            genai_client.models.generate_content(model=MODEL, contents="hi")

        assert raised.value.code == 400
        assert raised.value.status == "INVALID_ARGUMENT"
        genai_client = client(fake, key="right")
        assert genai_client.models.generate_content(model=MODEL, contents="hi").text


def test_rate_limit_has_retry_info(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(GeminiFake.rate_limited(retry_after=9))

    with pytest.raises(errors.ClientError) as raised:
        genai_client = client(gemini_fake)
        genai_client.models.generate_content(model=MODEL, contents="hi")

    assert (raised.value.code, raised.value.status) == (429, "RESOURCE_EXHAUSTED")
    retry_info = raised.value.details["error"]["details"][-1]
    assert retry_info == {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "9s"}
    assert len(gemini_fake.requests) == 1


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors(gemini_fake: GeminiFake, status: int) -> None:
    gemini_fake.queue(GeminiFake.server_error(status))

    with pytest.raises(errors.ServerError) as raised:
        genai_client = client(gemini_fake)
        genai_client.models.generate_content(model=MODEL, contents="hi")

    assert raised.value.code == status


def test_garbage_line_is_a_decode_error(gemini_fake: GeminiFake) -> None:
    # Unlike the OpenAI SDK, google-genai reads a line without ``data: `` as JSON.
    gemini_fake.queue(Answer(["a", "b"], fault=Garbage(after=1, data=b"garbage\r\n\r\n")))

    with pytest.raises(errors.UnknownApiResponseError):
        genai_client = client(gemini_fake)
        list(genai_client.models.generate_content_stream(model=MODEL, contents="hi"))


def test_cut_stream_raises(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["a", "b", "c"], fault=Cut(after=1, partial=10)))

    with pytest.raises(httpx.RemoteProtocolError):
        genai_client = client(gemini_fake)
        list(genai_client.models.generate_content_stream(model=MODEL, contents="hi"))


def test_slow_first_byte_times_out(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(delay=60))

    with pytest.raises(httpx.TimeoutException):
        genai_client = client(gemini_fake, timeout_ms=500)
        genai_client.models.generate_content(model=MODEL, contents="hi")


# --------------------------------------------------------------------------- pydantic-ai


@pytest.mark.anyio
async def test_agent_streams_text_and_usage(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["Your notes ", "mention ", "WAL."], usage=Usage(100, 12)))

    async with agent_for(gemini_fake).run_stream("What about SQLite?") as result:
        text = "".join([d async for d in result.stream_text(delta=True, debounce_by=None)])

    assert text == "Your notes mention WAL."
    # Gemini's usage is cumulative per chunk; pydantic-ai must not add it up chunk by chunk.
    assert (result.usage.input_tokens, result.usage.output_tokens) == (100, 12)
    request = gemini_fake.last()
    assert request.header("x-goog-api-key") == "gemini-key"
    assert request.json["contents"][-1] == {
        "parts": [{"text": "What about SQLite?"}],
        "role": "user",
    }


@pytest.mark.anyio
async def test_agent_tool_round_trip(gemini_fake: GeminiFake) -> None:
    agent = agent_for(gemini_fake)
    seen: list[str] = []

    @agent.tool_plain
    def search_notes(query: str) -> str:
        """Search the vault."""
        seen.append(query)
        return "sqlite.md: use WAL"

    gemini_fake.queue(
        Answer(tool_calls=[ToolCall("search_notes", {"query": "sqlite"})]), Answer("Use WAL.")
    )
    async with agent.run_stream("What about SQLite?") as result:
        output = await result.get_output()

    assert output == "Use WAL."
    assert seen == ["sqlite"]
    first, second = gemini_fake.requests
    declaration = first.json["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "search_notes"
    assert declaration["description"] == "Search the vault."
    call_turn, result_turn = second.json["contents"][-2:]
    assert call_turn["role"] == "model"
    assert call_turn["parts"][0]["functionCall"]["args"] == {"query": "sqlite"}
    response = result_turn["parts"][0]["functionResponse"]
    assert response["name"] == "search_notes"
    assert response["response"] == {"return_value": "sqlite.md: use WAL"}


@pytest.mark.anyio
async def test_agent_sends_thinking_config(gemini_fake: GeminiFake) -> None:
    await agent_for(gemini_fake).run("hi", model_settings=ModelSettings(thinking="high"))

    config = gemini_fake.last().json["generationConfig"]
    # Gemini 2.5 takes a budget; the SDK leaves this dict's keys in snake_case on the wire.
    # The budget is ours to decide; any other key the library adds is not asserted.
    assert config["thinkingConfig"]["thinking_budget"] == 24576
    assert config["thinkingConfig"]["include_thoughts"] is True


@pytest.mark.anyio
async def test_agent_sends_image_parts(gemini_fake: GeminiFake) -> None:
    await agent_for(gemini_fake).run(["Describe this", BinaryContent(PNG, media_type="image/png")])

    parts = gemini_fake.last().json["contents"][-1]["parts"]
    assert parts[0] == {"text": "Describe this"}
    # Snake case inside the part, as pydantic-ai hands google-genai dicts it passes through as is.
    assert parts[1]["inlineData"]["mime_type"] == "image/png"
    assert base64.b64decode(parts[1]["inlineData"]["data"]) == PNG


@pytest.mark.anyio
async def test_agent_invalid_key_is_an_authentication_error() -> None:
    with GeminiFake(require_key="right") as fake, pytest.raises(ModelAuthenticationError) as raised:
        await agent_for(fake, key="wrong").run("hi")

    assert isinstance(raised.value, ModelHTTPError)
    assert raised.value.status_code == 400


@pytest.mark.anyio
async def test_agent_rate_limit_reads_retry_delay_from_the_body(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(GeminiFake.rate_limited(retry_after=9))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(gemini_fake).run_stream("hi") as result:
            await result.get_output()

    assert raised.value.retry_after == 9
    assert len(gemini_fake.requests) == 1


@pytest.mark.anyio
async def test_agent_daily_quota_is_not_a_rate_limit(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(GeminiFake.rate_limited(daily=True))

    with pytest.raises(ModelQuotaExceededError):
        await agent_for(gemini_fake).run("hi")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "error"), [(500, ModelServerError), (503, ModelOverloadedError)]
)
async def test_agent_server_errors(
    gemini_fake: GeminiFake, status: int, error: type[Exception]
) -> None:
    gemini_fake.queue(GeminiFake.server_error(status))

    with pytest.raises(error):
        await agent_for(gemini_fake).run("hi")


@pytest.mark.anyio
async def test_agent_cut_stream_raises(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["a", "b", "c"], fault=Cut(after=1)))

    with anyio.fail_after(120), pytest.raises(ModelConnectionError):
        async with agent_for(gemini_fake).run_stream("hi") as result:
            await result.get_output()


@pytest.mark.anyio
async def test_agent_malformed_stream_raises(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["a", "b"], fault=Garbage(after=1)))

    with pytest.raises(ModelAPIError, match="decode"):
        async with agent_for(gemini_fake).run_stream("hi") as result:
            await result.get_output()


@pytest.mark.anyio
async def test_agent_in_stream_error(gemini_fake: GeminiFake) -> None:
    gemini_fake.queue(Answer(["a", "b"], fault=StreamError(after=1, code="RESOURCE_EXHAUSTED")))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(gemini_fake).run_stream("hi") as result:
            await result.get_output()

    assert raised.value.in_stream
