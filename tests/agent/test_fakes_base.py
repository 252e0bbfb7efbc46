"""The shared fake machinery: the request log, its memory bound, the script's order, shutdown."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.agent.fakes import Answer, OpenAIFake
from tests.agent.fakes.base import MAX_RECORDED_BODY, split_text


def test_each_fake_gets_its_own_port() -> None:
    with OpenAIFake() as first, OpenAIFake() as second:
        assert first.port != second.port
        assert first.base_url.startswith("http://127.0.0.1:")


def test_request_log_keeps_method_path_query_headers_and_json(openai_fake: OpenAIFake) -> None:
    httpx.post(
        f"{openai_fake.base_url}/v1/chat/completions?trace=1",
        json={"model": "m", "messages": []},
        headers={"X-Custom": "yes"},
    )

    request = openai_fake.last()
    assert (request.method, request.path, request.query) == (
        "POST",
        "/v1/chat/completions",
        {"trace": ["1"]},
    )
    assert request.header("X-Custom") == "yes"
    assert request.json == {"model": "m", "messages": []}


def test_large_bodies_are_bounded(openai_fake: OpenAIFake) -> None:
    big = b"x" * (MAX_RECORDED_BODY + 12345)

    httpx.post(f"{openai_fake.base_url}/v1/embeddings", content=big)

    request = openai_fake.last()
    assert len(request.body) == MAX_RECORDED_BODY
    assert request.body_size == len(big)
    assert request.truncated
    assert request.json is None


def test_chunked_request_bodies_are_read(openai_fake: OpenAIFake) -> None:
    def pieces() -> Iterator[bytes]:
        yield b'{"model": "m", '
        yield b'"input": "chunked"}'

    httpx.post(f"{openai_fake.base_url}/v1/embeddings", content=pieces())

    assert openai_fake.last().json == {"model": "m", "input": "chunked"}


def test_replies_are_used_in_order_then_the_default(openai_fake: OpenAIFake) -> None:
    openai_fake.queue(Answer("one"), Answer("two"))
    url = f"{openai_fake.base_url}/v1/chat/completions"

    answers = [
        httpx.post(url, json={"model": "m", "messages": []}).json()["choices"][0]["message"][
            "content"
        ]
        for _ in range(3)
    ]

    assert answers[:2] == ["one", "two"]
    assert answers[2] == "This is the fake model's answer."
    assert openai_fake.pending() == 0


def test_unknown_paths_are_404(openai_fake: OpenAIFake) -> None:
    assert httpx.get(f"{openai_fake.base_url}/nope").status_code == 404


def test_wait_for_requests_polls_until_they_arrive(openai_fake: OpenAIFake) -> None:
    def later() -> None:
        time.sleep(0.2)
        httpx.get(f"{openai_fake.base_url}/v1/models")

    thread = threading.Thread(target=later)
    thread.start()
    assert [r.path for r in openai_fake.wait_for_requests(1)] == ["/v1/models"]
    thread.join()


def test_stopping_ends_a_scripted_delay() -> None:
    fake = OpenAIFake().start()
    fake.queue(Answer(delay=600))
    url = f"{fake.base_url}/v1/chat/completions"
    errors: list[BaseException] = []

    def call() -> None:
        try:
            httpx.post(url, json={"model": "m", "messages": []}, timeout=600)
        except httpx.HTTPError as error:
            errors.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    fake.wait_for_requests(1)
    started = time.monotonic()
    fake.stop()
    thread.join(timeout=120)

    assert not thread.is_alive()
    assert time.monotonic() - started < 120
    assert errors  # the client saw the connection close, not an answer


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [("abcdef", 3, ["ab", "cd", "ef"]), ("abc", 5, ["a", "b", "c"]), ("abcde", 2, ["abc", "de"])],
)
def test_split_text(text: str, parts: int, expected: list[str]) -> None:
    assert split_text(text, parts) == expected
