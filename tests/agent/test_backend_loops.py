"""One backend model used from several event loops, as the CLI (one ``asyncio.run`` per step)
and the web UI (a flow's calls on a worker thread's loop) use it."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Any

import pytest

from tests.agent.fakes import DEFAULT_TEXT, OpenAIFake
from tests.review.support import isolate, model_for
from vaultctx.agent.llm_backends.openai import openai_client


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)


def test_a_model_answers_in_a_second_event_loop(openai_fake: OpenAIFake, tmp_path: Path) -> None:
    """The first loop's pooled connection is not reused by the second (it died with its loop:
    the SDK's own client answered ``RuntimeError: Event loop is closed``)."""
    model = model_for(openai_fake, tmp_path)
    for _ in range(3):
        assert asyncio.run(model.complete("system", "hello", max_tokens=20)) == DEFAULT_TEXT
    assert len(openai_fake.requests) == 3


def test_a_client_dropped_after_its_loop_closed_does_not_disturb_the_next_loop(
    openai_fake: OpenAIFake,
) -> None:
    """The SDK's own client closes itself, when collected, on whatever loop is running then;
    the connections belong to the closed loop, so that close failed as an unhandled error of an
    unrelated loop (a web UI server's, or a test's)."""
    holder: dict[str, Any] = {"client": openai_client(f"{openai_fake.base_url}/v1", "k", 30)}

    async def call() -> None:
        reply = await holder["client"].chat.completions.create(
            model="gpt-fake", messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.choices[0].message.content == DEFAULT_TEXT

    asyncio.run(call())
    reported: list[dict[str, Any]] = []

    async def drop_it() -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda _, context: reported.append(context)
        )
        holder.clear()
        gc.collect()
        for _ in range(5):
            await asyncio.sleep(0.01)
        gc.collect()  # a failed task reports itself when it is collected

    asyncio.run(drop_it())
    assert reported == []
