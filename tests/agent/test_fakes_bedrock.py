"""The Bedrock fake against boto3 (runtime and control plane) and ``BedrockConverseModel``."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import anyio
import boto3  # type: ignore[import-untyped]
import pytest
import urllib3
from botocore.config import Config  # type: ignore[import-untyped]
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer  # type: ignore[import-untyped]
from botocore.exceptions import (  # type: ignore[import-untyped]
    ClientError,
    EventStreamError,
    ReadTimeoutError,
)
from pydantic_ai import Agent, BinaryContent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelServerError,
    ModelUnavailableError,
)
from pydantic_ai.models.bedrock import BedrockConverseModel
from pydantic_ai.providers.bedrock import BedrockProvider
from pydantic_ai.settings import ModelSettings

from tests.agent.fakes import (
    DEFAULT_TEXT,
    Answer,
    BedrockFake,
    Cut,
    Embeddings,
    Garbage,
    StreamError,
    ToolCall,
    Usage,
)
from tests.agent.fakes.base import TINY_PNG, fake_vector
from tests.agent.fakes.bedrock_fake import encode_event_message

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
HELLO = [{"role": "user", "content": [{"text": "hi"}]}]


def boto_client(
    fake: BedrockFake, service: str = "bedrock-runtime", read_timeout: float = 120
) -> Any:
    """Signed with fake keys; one attempt, so error tests see exactly one request."""
    return boto3.client(
        service,
        endpoint_url=fake.base_url,
        region_name="us-east-1",
        aws_access_key_id="AKIDFAKEEXAMPLE",
        aws_secret_access_key="fake-secret",
        config=Config(retries={"total_max_attempts": 1}, read_timeout=read_timeout),
    )


def agent_for(fake: BedrockFake, model: str = CLAUDE) -> Agent[None, str]:
    provider = BedrockProvider(bedrock_client=boto_client(fake))
    return Agent(BedrockConverseModel(model, provider=provider))


@pytest.fixture
def no_bedrock_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """botocore prefers ``AWS_BEARER_TOKEN_BEDROCK`` over explicit keys; keep the host's out."""
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    yield


pytestmark = pytest.mark.usefixtures("no_bedrock_env")


# --------------------------------------------------------------------------- the encoder


def test_event_stream_encoding_round_trips_through_botocore() -> None:
    headers = {":event-type": "messageStart", ":message-type": "event"}
    encoded = encode_event_message(headers, b'{"role":"assistant"}')
    buffer = EventStreamBuffer()
    buffer.add_data(encoded * 2)

    messages = list(buffer)

    assert len(messages) == 2
    assert messages[0].headers == headers
    assert messages[0].payload == b'{"role":"assistant"}'


def test_a_flipped_byte_fails_the_crc() -> None:
    encoded = bytearray(encode_event_message({":event-type": "x"}, b"{}"))
    encoded[-6] ^= 0xFF
    buffer = EventStreamBuffer()
    buffer.add_data(bytes(encoded))

    with pytest.raises(ChecksumMismatch):
        list(buffer)


# --------------------------------------------------------------------------- bedrock-runtime


def test_converse_default_answer_is_sigv4_signed(bedrock_fake: BedrockFake) -> None:
    response = boto_client(bedrock_fake).converse(modelId=CLAUDE, messages=HELLO)

    assert response["output"]["message"]["content"] == [{"text": DEFAULT_TEXT}]
    assert response["stopReason"] == "end_turn"
    assert response["usage"] == {"inputTokens": 11, "outputTokens": 7, "totalTokens": 18}
    request = bedrock_fake.last()
    assert request.path == f"/model/{CLAUDE}/converse"
    assert "%3A0/converse" in request.raw_path  # the model id's colon goes URL-encoded
    authorization = request.header("authorization") or ""
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDFAKEEXAMPLE/")
    assert "/us-east-1/bedrock/aws4_request" in authorization
    assert request.json == {"messages": HELLO}


def test_converse_stream_events(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(
        Answer(
            ["Let me ", "look."],
            tool_calls=[ToolCall("search", {"query": "wal"}, id="tooluse_1", split=3)],
            usage=Usage(50, 8),
        )
    )

    response = boto_client(bedrock_fake).converse_stream(modelId=CLAUDE, messages=HELLO)
    events = list(response["stream"])

    assert events[0] == {"messageStart": {"role": "assistant"}}
    text = "".join(
        e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e
    )
    assert text == "Let me look."
    starts = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert starts == [
        {"start": {"toolUse": {"toolUseId": "tooluse_1", "name": "search"}}, "contentBlockIndex": 1}
    ]
    fragments = [
        e["contentBlockDelta"]["delta"]["toolUse"]["input"]
        for e in events
        if "contentBlockDelta" in e and "toolUse" in e["contentBlockDelta"]["delta"]
    ]
    assert len(fragments) == 3
    assert json.loads("".join(fragments)) == {"query": "wal"}
    assert {"messageStop": {"stopReason": "tool_use"}} in events
    assert events[-1]["metadata"]["usage"] == {
        "inputTokens": 50,
        "outputTokens": 8,
        "totalTokens": 58,
    }
    assert bedrock_fake.last().path == f"/model/{CLAUDE}/converse-stream"


def test_invoke_titan_and_cohere_embeddings(bedrock_fake: BedrockFake) -> None:
    runtime = boto_client(bedrock_fake)
    bedrock_fake.queue_embed(Embeddings([[0.1, 0.2, 0.3]]))

    titan = runtime.invoke_model(
        modelId="amazon.titan-embed-text-v2:0", body=json.dumps({"inputText": "hello"})
    )
    cohere = runtime.invoke_model(
        modelId="cohere.embed-english-v3",
        body=json.dumps({"texts": ["a", "b"], "input_type": "search_document"}),
    )

    titan_body = json.loads(titan["body"].read())
    assert titan_body["embedding"] == [0.1, 0.2, 0.3]
    assert titan_body["inputTextTokenCount"] == 1
    cohere_body = json.loads(cohere["body"].read())
    assert cohere_body["embeddings"] == [fake_vector("a", 8), fake_vector("b", 8)]
    assert bedrock_fake.last().json["input_type"] == "search_document"


def test_control_plane_lists(bedrock_fake: BedrockFake) -> None:
    control = boto_client(bedrock_fake, service="bedrock")

    embedding = control.list_foundation_models(byOutputModality="EMBEDDING")["modelSummaries"]
    pages = control.get_paginator("list_inference_profiles").paginate(
        PaginationConfig={"PageSize": 2}
    )
    profiles = [
        p["inferenceProfileId"] for page in pages for p in page["inferenceProfileSummaries"]
    ]

    assert [m["modelId"] for m in embedding] == [
        "amazon.titan-embed-text-v2:0",
        "cohere.embed-english-v3",
    ]
    assert profiles == [
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.amazon.nova-lite-v1:0",
        "global.amazon.nova-lite-v1:0",
    ]
    assert bedrock_fake.requests_to("/foundation-models")[0].query == {
        "byOutputModality": ["EMBEDDING"]
    }
    assert len(bedrock_fake.requests_to("/inference-profiles")) == 2


def test_auth_error_is_a_client_error(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(BedrockFake.auth_error())

    with pytest.raises(ClientError) as raised:
        boto_client(bedrock_fake).converse(modelId=CLAUDE, messages=HELLO)

    assert raised.value.response["Error"]["Code"] == "UnrecognizedClientException"
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_throttling_is_the_modeled_exception(bedrock_fake: BedrockFake) -> None:
    runtime = boto_client(bedrock_fake)
    bedrock_fake.queue(BedrockFake.rate_limited(retry_after=4))

    with pytest.raises(runtime.exceptions.ThrottlingException) as raised:
        runtime.converse_stream(modelId=CLAUDE, messages=HELLO)

    assert raised.value.response["ResponseMetadata"]["HTTPHeaders"]["retry-after"] == "4"
    assert len(bedrock_fake.requests) == 1  # retries are off: one attempt


@pytest.mark.parametrize(
    ("status", "code"), [(500, "InternalServerException"), (503, "ServiceUnavailableException")]
)
def test_server_errors(bedrock_fake: BedrockFake, status: int, code: str) -> None:
    bedrock_fake.queue(BedrockFake.server_error(status))

    with pytest.raises(ClientError) as raised:
        boto_client(bedrock_fake).converse(modelId=CLAUDE, messages=HELLO)

    assert raised.value.response["Error"]["Code"] == code


def test_in_stream_throttling_event(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(["a", "b"], fault=StreamError(after=2, code="throttlingException")))
    response = boto_client(bedrock_fake).converse_stream(modelId=CLAUDE, messages=HELLO)

    with pytest.raises(EventStreamError) as raised:
        list(response["stream"])

    assert raised.value.response["Error"]["Code"] == "throttlingException"


def test_cut_stream_raises(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(["a", "b", "c"], fault=Cut(after=2, partial=7)))
    response = boto_client(bedrock_fake).converse_stream(modelId=CLAUDE, messages=HELLO)

    # botocore reads the event stream from urllib3, whose error comes through unwrapped.
    with pytest.raises(urllib3.exceptions.ProtocolError, match="ended prematurely"):
        list(response["stream"])


def test_slow_first_byte_times_out(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(delay=60))

    with pytest.raises(ReadTimeoutError):
        boto_client(bedrock_fake, read_timeout=0.5).converse(modelId=CLAUDE, messages=HELLO)


def test_bedrock_api_key_is_sent_as_bearer_over_https(monkeypatch: pytest.MonkeyPatch) -> None:
    with BedrockFake(tls=True) as fake:
        assert fake.ca_file is not None
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK-fake-api-key")
        runtime = boto3.client(
            "bedrock-runtime",
            endpoint_url=fake.base_url,
            region_name="us-east-1",
            verify=fake.ca_file,
            config=Config(signature_version="bearer", retries={"total_max_attempts": 1}),
        )

        runtime.converse(modelId=CLAUDE, messages=HELLO)

        assert fake.last().header("authorization") == "Bearer ABSK-fake-api-key"


def test_the_env_api_key_wins_over_explicit_access_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # A surprise worth pinning: with AWS_BEARER_TOKEN_BEDROCK set, botocore sends it even to a
    # client built with an access key pair, so "which credential" can't be read off the code.
    with BedrockFake(tls=True) as fake:
        assert fake.ca_file is not None
        monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK-from-env")
        monkeypatch.setenv("AWS_CA_BUNDLE", fake.ca_file)

        boto_client(fake).converse(modelId=CLAUDE, messages=HELLO)

        assert fake.last().header("authorization") == "Bearer ABSK-from-env"


# --------------------------------------------------------------------------- pydantic-ai


@pytest.mark.anyio
async def test_agent_streams_text_and_usage(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(["Your notes ", "mention ", "WAL."], usage=Usage(200, 15)))

    async with agent_for(bedrock_fake).run_stream("What about SQLite?") as result:
        text = "".join([d async for d in result.stream_text(delta=True, debounce_by=None)])

    assert text == "Your notes mention WAL."
    assert (result.usage.input_tokens, result.usage.output_tokens) == (200, 15)
    request = bedrock_fake.last()
    assert request.path == f"/model/{CLAUDE}/converse-stream"
    assert (request.header("authorization") or "").startswith("AWS4-HMAC-SHA256 Credential=AKID")
    assert request.json["messages"] == [
        {"role": "user", "content": [{"text": "What about SQLite?"}]}
    ]


@pytest.mark.anyio
async def test_agent_tool_round_trip(bedrock_fake: BedrockFake) -> None:
    agent = agent_for(bedrock_fake)
    seen: list[str] = []

    @agent.tool_plain
    def search_notes(query: str) -> str:
        """Search the vault."""
        seen.append(query)
        return "sqlite.md: use WAL"

    bedrock_fake.queue(
        Answer(tool_calls=[ToolCall("search_notes", {"query": "sqlite"}, id="tu_1", split=4)]),
        Answer(["Use ", "WAL."]),
    )
    async with agent.run_stream("What about SQLite?") as result:
        output = await result.get_output()

    assert output == "Use WAL."
    assert seen == ["sqlite"]
    first, second = bedrock_fake.requests
    spec = first.json["toolConfig"]["tools"][0]["toolSpec"]
    assert spec["name"] == "search_notes"
    assert spec["description"] == "Search the vault."
    assistant, user = second.json["messages"][-2:]
    assert assistant["content"][-1] == {
        "toolUse": {"toolUseId": "tu_1", "name": "search_notes", "input": {"query": "sqlite"}}
    }
    assert user["content"][0]["toolResult"] == {
        "toolUseId": "tu_1",
        "content": [{"text": "sqlite.md: use WAL"}],
        "status": "success",
    }


@pytest.mark.anyio
async def test_agent_sends_thinking_as_additional_fields(bedrock_fake: BedrockFake) -> None:
    await agent_for(bedrock_fake).run("hi", model_settings=ModelSettings(thinking="high"))

    # What our code decides: thinking is on, with the budget "high" maps to. Other keys the
    # library adds (pydantic-ai 2.78 added "display") are its business, not ours.
    thinking = bedrock_fake.last().json["additionalModelRequestFields"]["thinking"]
    assert thinking["type"] == "enabled"
    assert thinking["budget_tokens"] == 16384


@pytest.mark.anyio
async def test_agent_sends_image_blocks(bedrock_fake: BedrockFake) -> None:
    await agent_for(bedrock_fake).run(
        ["Describe this", BinaryContent(TINY_PNG, media_type="image/png")]
    )

    content = bedrock_fake.last().json["messages"][-1]["content"]
    assert content[0] == {"text": "Describe this"}
    assert content[1]["image"]["format"] == "png"
    assert base64.b64decode(content[1]["image"]["source"]["bytes"]) == TINY_PNG


@pytest.mark.anyio
async def test_agent_with_a_bedrock_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with BedrockFake(tls=True) as fake:
        assert fake.ca_file is not None
        monkeypatch.setenv("AWS_CA_BUNDLE", fake.ca_file)
        provider = BedrockProvider(
            api_key="ABSK-agent-key", base_url=fake.base_url, region_name="us-east-1"
        )

        result = await Agent(BedrockConverseModel(CLAUDE, provider=provider)).run("hi")

        assert result.output == DEFAULT_TEXT
        assert fake.last().header("authorization") == "Bearer ABSK-agent-key"


@pytest.mark.anyio
async def test_agent_auth_error(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(BedrockFake.auth_error())

    with pytest.raises(ModelAuthenticationError) as raised:
        await agent_for(bedrock_fake).run("hi")

    assert isinstance(raised.value, ModelHTTPError)
    assert raised.value.status_code == 403


@pytest.mark.anyio
async def test_agent_throttling_with_retry_after(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(BedrockFake.rate_limited(retry_after=5))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(bedrock_fake).run_stream("hi") as result:
            await result.get_output()

    assert raised.value.retry_after == 5
    assert len(bedrock_fake.requests) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "error"), [(500, ModelServerError), (503, ModelUnavailableError)]
)
async def test_agent_server_errors(
    bedrock_fake: BedrockFake, status: int, error: type[Exception]
) -> None:
    bedrock_fake.queue(BedrockFake.server_error(status))

    with pytest.raises(error):
        await agent_for(bedrock_fake).run("hi")


@pytest.mark.anyio
async def test_agent_in_stream_throttling(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(["a", "b"], fault=StreamError(after=2, code="throttlingException")))

    with pytest.raises(ModelRateLimitError) as raised:
        async with agent_for(bedrock_fake).run_stream("hi") as result:
            await result.get_output()

    assert raised.value.in_stream


@pytest.mark.anyio
async def test_agent_cut_stream_raises(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(Answer(["a", "b", "c"], fault=Cut(after=2, partial=7)))

    with anyio.fail_after(120), pytest.raises(ModelConnectionError):
        async with agent_for(bedrock_fake).run_stream("hi") as result:
            await result.get_output()


@pytest.mark.anyio
async def test_agent_corrupt_frame_raises(bedrock_fake: BedrockFake) -> None:
    bedrock_fake.queue(
        Answer(["a", "b"], fault=Garbage(after=2, data=b"not an event-stream frame"))
    )

    with pytest.raises(ModelAPIError, match="event stream"):
        async with agent_for(bedrock_fake).run_stream("hi") as result:
            await result.get_output()
