"""gpt-5.4 and gpt-5.6 on answer with tools and reasoning together, over the Responses API.

OpenAI refuses function tools with a reasoning effort over Chat Completions on these models, and
pydantic-ai refuses such a request before sending it, so every turn of theirs failed at every
effort level. They now go through ``/v1/responses`` (agent/llm_backends/openai.py,
``openai_api``); the fake speaks that API's wire protocol to the real openai client
(tests/agent/fakes/openai_responses.py), and these tests read the requests it received.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agent.fakes import Answer, OpenAIFake, ToolCall
from tests.agent.session_support import no_retrieval
from tests.agent.tool_support import vault_copy
from tests.review.support import isolate
from vaultctx.agent.effort import allowed_efforts
from vaultctx.agent.llm_backends.openai import openai_api
from vaultctx.agent.session import ChatSession, Turn
from vaultctx.agent.settings import load_agent_settings
from vaultctx.api import Vault


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    isolate(tmp_path, monkeypatch)
    no_retrieval(monkeypatch)
    return vault_copy(tmp_path)


def turn(vault: Vault, fake: OpenAIFake, model: str, effort: str, tmp_path: Path) -> Turn:
    settings = load_agent_settings(
        None,
        {
            "backend": "openai",
            "model": model,
            "effort": effort,
            "base_url": f"{fake.base_url}/v1",
            "api_key_secret": "openai-test",
            "translate": False,
        },
        user_config=tmp_path / "no-user-config.toml",
    )
    session = ChatSession(vault, settings)
    return asyncio.run(session.ask("What is in my daily folder?", lambda delta: None))


@pytest.mark.parametrize("effort", allowed_efforts("openai", "gpt-5.6"))
def test_gpt_5_6_calls_tools_at_every_effort_level(
    vault: Vault, openai_fake: OpenAIFake, tmp_path: Path, effort: str
) -> None:
    openai_fake.queue(
        Answer(tool_calls=[ToolCall("list_files", {"folder": "daily"})]),
        Answer("Three daily notes."),
    )
    answered = turn(vault, openai_fake, "gpt-5.6", effort, tmp_path)
    assert answered.error is None, answered.error
    assert answered.answer == "Three daily notes."
    assert [call["name"] for call in answered.tool_calls] == ["list_files"]
    assert openai_fake.requests_to("/chat/completions") == []
    first, second = [r.json for r in openai_fake.requests_to("/v1/responses")]
    assert first["reasoning"]["effort"] == effort
    assert "list_files" in [tool["name"] for tool in first["tools"]]
    result = next(item for item in second["input"] if item.get("type") == "function_call_output")
    assert result["output"].startswith("📄 2024-03-12.md")


def test_which_models_go_through_the_responses_api() -> None:
    responses = ["gpt-5.4", "gpt-5.4-mini", "gpt-5.6", "gpt-5.6-sol", "gpt-6-luna", "gpt-7"]
    chat = ["gpt-5.2", "gpt-5.4-pro", "gpt-5.5", "o3", "gpt-4o", "llama3.2", "qwen3:8b"]
    assert [openai_api(model) for model in responses] == ["responses"] * len(responses)
    assert [openai_api(model) for model in chat] == ["chat"] * len(chat)


def test_older_models_stay_on_chat_completions(
    vault: Vault, openai_fake: OpenAIFake, tmp_path: Path
) -> None:
    openai_fake.queue(Answer("Fine."))
    answered = turn(vault, openai_fake, "gpt-5.2", "high", tmp_path)
    assert answered.error is None and answered.answer == "Fine."
    [sent] = [r.json for r in openai_fake.requests_to("/chat/completions")]
    assert sent["reasoning_effort"] == "high"
    assert openai_fake.requests_to("/v1/responses") == []
