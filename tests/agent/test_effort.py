"""Reasoning effort: the per-family tables, the clamp, and the field each backend sends."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent.conftest import TinyBedrock, TinyServer
from vaultctx.agent.effort import (
    LEVELS,
    allowed_efforts,
    check_effort_value,
    clamp_effort,
    effort_model_settings,
)
from vaultctx.errors import VaultctxError

GPT_LATEST = ("low", "medium", "high", "xhigh", "max")
GPT_5 = ("minimal", "low", "medium", "high")
O_SERIES = ("low", "medium", "high")
GEMINI = ("minimal", "low", "medium", "high")
GEMINI_PRO = ("low", "high")
CLAUDE = ("low", "medium", "high", "xhigh", "max")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-5", GPT_5),
        ("gpt-5-mini", GPT_5),
        ("gpt-5.4", GPT_5),
        ("gpt-5.5", GPT_5),
        ("gpt-5.6", GPT_LATEST),
        ("gpt-5.6-mini", GPT_LATEST),
        ("gpt-6", GPT_LATEST),
        ("gpt-10", GPT_LATEST),
        ("o1", O_SERIES),
        ("o3-mini", O_SERIES),
        ("o4-mini", O_SERIES),
        ("gpt-4o", ()),
        ("gpt-4.1", ()),
        ("omni-moderation-latest", ()),
        ("llama3", ()),
    ],
)
def test_openai_efforts_follow_the_model_id(model: str, expected: tuple[str, ...]) -> None:
    assert allowed_efforts("openai", model) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-3-flash-preview", GEMINI),
        ("gemini-3.1-flash-lite", GEMINI),
        ("models/gemini-3-flash", GEMINI),
        ("gemini-3-pro-preview", GEMINI_PRO),
        ("gemini-3.1-pro", GEMINI_PRO),
        ("gemini-4-flash", GEMINI),
        ("gemini-2.5-pro", ()),
        ("gemini-2.5-flash", ()),
        ("gemma-3-27b", ()),
    ],
)
def test_gemini_efforts(model: str, expected: tuple[str, ...]) -> None:
    assert allowed_efforts("gemini", model) == expected


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("anthropic.claude-opus-4-6-v1", CLAUDE),
        ("global.anthropic.claude-opus-4-6-v1", CLAUDE),
        ("anthropic.claude-opus-4-20250514-v1:0", CLAUDE),
        ("global.anthropic.claude-sonnet-5-20260101-v1:0", CLAUDE),
        ("us.anthropic.claude-haiku-5-v1:0", CLAUDE),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", ()),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", ()),
        ("anthropic.claude-3-5-sonnet-20241022-v2:0", ()),
        ("openai.gpt-5.6-sol", GPT_LATEST),
        ("us.openai.gpt-5.4", GPT_5),
        ("openai.gpt-oss-120b-1:0", ()),
        ("amazon.nova-pro-v1:0", ()),
    ],
)
def test_bedrock_efforts(model: str, expected: tuple[str, ...]) -> None:
    assert allowed_efforts("bedrock", model) == expected


@pytest.mark.parametrize("model", ["gpt-5.6", "o3", "llama3.2", "qwen3"])
def test_ollama_never_takes_an_effort(model: str) -> None:
    assert allowed_efforts("ollama", model) == ()


def test_an_unknown_backend_is_a_bug_not_a_silent_no() -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        allowed_efforts("azure", "gpt-5")


@pytest.mark.parametrize(
    ("requested", "allowed", "expected"),
    [
        ("high", GPT_5, "high"),
        ("max", GPT_5, "high"),
        ("xhigh", GPT_5, "high"),
        ("minimal", GPT_LATEST, "low"),
        ("minimal", O_SERIES, "low"),
        ("max", O_SERIES, "high"),
        ("medium", GEMINI_PRO, "low"),  # a tie goes to the weaker level
        ("minimal", GEMINI_PRO, "low"),
        ("xhigh", GEMINI_PRO, "high"),
        ("max", GEMINI, "high"),
        ("high", ("low", "max"), "low"),  # two ranks either way: still the weaker
        ("HIGH", GPT_5, "high"),
        (None, GPT_5, "medium"),
        ("turbo", GPT_5, "medium"),
        (None, GEMINI_PRO, "low"),  # medium not allowed: the first allowed
        ("", GEMINI_PRO, "low"),
        ("high", (), None),
        (None, (), None),
    ],
)
def test_clamp(requested: str | None, allowed: tuple[str, ...], expected: str | None) -> None:
    assert clamp_effort(requested, allowed) == expected


@pytest.mark.parametrize("level", LEVELS)
def test_clamp_keeps_every_allowed_level(level: str) -> None:
    assert clamp_effort(level, LEVELS) == level


def test_check_effort_value_accepts_any_case() -> None:
    assert check_effort_value(" XHigh ") == "xhigh"


def test_check_effort_value_names_the_levels() -> None:
    with pytest.raises(VaultctxError) as raised:
        check_effort_value("extreme")
    assert "extreme" in raised.value.message
    assert "minimal, low, medium, high, xhigh, max" in raised.value.suggestion


@pytest.mark.parametrize(
    ("backend", "model"),
    [
        ("ollama", "qwen3"),
        ("openai", "gpt-4o"),
        ("gemini", "gemini-2.5-pro"),
        ("bedrock", "amazon.nova-pro-v1:0"),
    ],
)
def test_unsupported_models_get_no_setting(backend: str, model: str) -> None:
    assert effort_model_settings(backend, model, "high") == {}


# The wire: what pydantic-ai actually sends with these settings.


def _openai(server: TinyServer, model: str, effort: str | None) -> dict[str, Any]:
    return server.send_openai(model, settings=dict(effort_model_settings("openai", model, effort)))


def test_openai_sends_reasoning_effort_at_the_top_level(tiny_openai: TinyServer) -> None:
    body = _openai(tiny_openai, "gpt-5.6", "max")
    assert body["reasoning_effort"] == "max"  # not folded to xhigh, as the unified setting would
    assert "temperature" not in body


def test_openai_sends_the_clamped_value(tiny_openai: TinyServer) -> None:
    assert _openai(tiny_openai, "gpt-5.4", "max")["reasoning_effort"] == "high"


def test_openai_compatible_endpoint_follows_the_model_id(tiny_openai: TinyServer) -> None:
    # tiny_openai is not api.openai.com: the model id alone decides.
    assert _openai(tiny_openai, "o3-mini", None)["reasoning_effort"] == "medium"


def test_openai_leaves_the_field_out_for_other_models(tiny_openai: TinyServer) -> None:
    body = _openai(tiny_openai, "gpt-4o", "high")
    assert "reasoning_effort" not in body
    assert "temperature" not in body


def test_openai_max_tokens_goes_out_as_max_completion_tokens(tiny_openai: TinyServer) -> None:
    settings: dict[str, Any] = {**effort_model_settings("openai", "o3", "low"), "max_tokens": 500}
    body = tiny_openai.send_openai("o3", settings=settings)
    assert body["max_completion_tokens"] == 500
    assert "max_tokens" not in body


def _thinking_config(body: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = body["generationConfig"].get("thinkingConfig", {})
    return config


@pytest.mark.parametrize(
    ("model", "effort", "level"),
    [("gemini-3-flash-preview", "minimal", "MINIMAL"), ("gemini-3-pro-preview", "medium", "LOW")],
)
def test_gemini_sends_the_thinking_level(
    tiny_gemini: TinyServer, model: str, effort: str, level: str
) -> None:
    settings = dict(effort_model_settings("gemini", model, effort))
    body = tiny_gemini.send_gemini(model, settings=settings)
    # google-genai 2.34 writes the inner field as thinking_level; the API's proto3 JSON takes both
    # spellings, so the test does too.
    config = _thinking_config(body)
    assert config in ({"thinkingLevel": level}, {"thinking_level": level})  # no includeThoughts
    assert "temperature" not in body["generationConfig"]


def test_gemini_leaves_thinking_out_before_gemini_3(tiny_gemini: TinyServer) -> None:
    settings = dict(effort_model_settings("gemini", "gemini-2.5-flash", "high"))
    body = tiny_gemini.send_gemini("gemini-2.5-flash", settings=settings)
    assert _thinking_config(body) == {}


def _bedrock_settings(model: str, effort: str) -> dict[str, Any]:
    # An explicit max_tokens keeps pydantic-ai on Converse: without it, it asks for the model's
    # whole output and streams behind the scenes (ConverseStream).
    return {**effort_model_settings("bedrock", model, effort), "max_tokens": 1000}


def test_bedrock_claude_sends_output_config_effort(tiny_bedrock: TinyBedrock) -> None:
    model = "global.anthropic.claude-opus-4-6-v1"
    params = tiny_bedrock.send(model, settings=_bedrock_settings(model, "xhigh"))
    # Only the effort: no thinking block is turned on, and xhigh is not mapped to max.
    assert params["additionalModelRequestFields"] == {"output_config": {"effort": "xhigh"}}
    assert "temperature" not in params["inferenceConfig"]


def test_bedrock_gpt_sends_reasoning_effort(tiny_bedrock: TinyBedrock) -> None:
    model = "openai.gpt-5.6-sol"
    params = tiny_bedrock.send(model, settings=_bedrock_settings(model, "minimal"))
    assert params["additionalModelRequestFields"] == {"reasoning": {"effort": "low"}}


def test_bedrock_leaves_the_fields_out_for_other_models(tiny_bedrock: TinyBedrock) -> None:
    model = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
    params = tiny_bedrock.send(model, settings=_bedrock_settings(model, "high"))
    assert "additionalModelRequestFields" not in params
