"""Reasoning effort: the levels each model family takes, the clamp, and the field that sends it.

The level is chosen here, from the model id, and sent through each backend's own pydantic-ai
setting rather than the unified ``thinking`` setting. ``thinking`` resolves against pydantic-ai's
model profiles, which disagree with the families below and change the request in other ways
(checked in pydantic-ai 2.68):

- OpenAI Chat Completions folds ``max`` to ``xhigh`` unless the profile says the model takes it;
  ``openai_reasoning_effort`` is sent as ``reasoning_effort`` unchanged (and as ``reasoning.effort``
  by the Responses API, which gpt-5.4 and gpt-5.6 on take their tools through: agent/backends.py).
- Gemini adds ``includeThoughts`` and snaps the level to the profile's set;
  ``google_thinking_config`` is sent as ``generationConfig.thinkingConfig`` unchanged.
- Bedrock Claude also turns on ``thinking: {type: adaptive}`` (or a token budget on older
  models, with no effort at all), and on Opus 4.6 sends ``xhigh`` as ``max``.
  ``bedrock_additional_model_requests_fields`` is sent as ``additionalModelRequestFields``
  unchanged, and pydantic-ai adds nothing to it when ``thinking`` is unset.

So one table (``allowed_efforts``) decides what is sent, and the tests read it off the wire.
Temperature is never set: reasoning models reject it, and effort replaces it. ``max_tokens`` needs
no help here: pydantic-ai already sends it to OpenAI as ``max_completion_tokens``.

This module imports no LLM client, so settings can validate an effort without loading one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.settings import ModelSettings

LEVELS = ("minimal", "low", "medium", "high", "xhigh", "max")
"""Every effort level, weakest first: the clamp moves along this order."""

DEFAULT_LEVEL = "medium"

LATEST_GPT = (5, 6)
_GPT_LATEST = ("low", "medium", "high", "xhigh", "max")  # gpt-5.6 and later
_GPT_5 = ("minimal", "low", "medium", "high")  # gpt-5 to gpt-5.5
_O_SERIES = ("low", "medium", "high")
_GEMINI_PRO = ("low", "high")
_GEMINI = ("minimal", "low", "medium", "high")
_CLAUDE = ("low", "medium", "high", "xhigh", "max")

_GPT_ID = re.compile(r"gpt-(\d+)(?:\.(\d+))?")
_O_SERIES_ID = re.compile(r"o[1-9]")
_GEMINI_ID = re.compile(r"gemini-(\d+)")
# Claude's Bedrock ids put the family before the version: anthropic.claude-opus-4-6-v1,
# us.anthropic.claude-sonnet-5-…; the older claude-3-5-sonnet-… naming never matches.
_CLAUDE_ID = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)")
_CLAUDE_MIN_MAJOR = {"opus": 4, "sonnet": 5, "haiku": 5}


def allowed_efforts(backend: str, model: str) -> tuple[str, ...]:
    """The levels ``model`` takes on ``backend``, weakest first; empty when it takes none.

    The model id decides, not the endpoint: an OpenAI-compatible ``base_url`` serving ``gpt-5.4``
    gets gpt-5.4's levels.
    """
    if backend == "openai":
        return _openai_efforts(model)
    if backend == "gemini":
        return _gemini_efforts(model.removeprefix("models/"))
    if backend == "bedrock":
        return _bedrock_efforts(model)
    if backend == "ollama":
        return ()
    raise ValueError(f"unknown backend {backend!r}")


def gpt_version(model: str) -> tuple[int, int] | None:
    """``gpt-5.6-sol`` is (5, 6), ``gpt-6`` (6, 0); None for a model id that is not a GPT's."""
    match = _GPT_ID.match(model)
    return (int(match[1]), int(match[2] or 0)) if match else None


def _openai_efforts(model: str) -> tuple[str, ...]:
    """gpt-5 and later, and the o-series; every other OpenAI model takes no effort."""
    if (version := gpt_version(model)) is not None:
        if version >= LATEST_GPT:
            return _GPT_LATEST
        return _GPT_5 if version >= (5, 0) else ()
    return _O_SERIES if _O_SERIES_ID.match(model) else ()


def _gemini_efforts(model: str) -> tuple[str, ...]:
    """Gemini 3 and later take a thinking level; Pro takes only two of them."""
    match = _GEMINI_ID.match(model)
    if match is None or int(match[1]) < 3:
        return ()
    return _GEMINI_PRO if "-pro" in model else _GEMINI


def _bedrock_efforts(model: str) -> tuple[str, ...]:
    """Claude from the versions that take ``output_config.effort``, and GPT ids like OpenAI's."""
    if match := _CLAUDE_ID.search(model):
        return _CLAUDE if int(match[2]) >= _CLAUDE_MIN_MAJOR[match[1]] else ()
    # The vendor and region prefixes end in a dot: openai.gpt-5.6-sol, us.openai.gpt-…
    if match := re.search(r"(?:^|\.)(gpt-.*)", model):
        return _openai_efforts(match[1])
    return ()


def clamp_effort(requested: str | None, allowed: tuple[str, ...]) -> str | None:
    """The level to send: ``requested`` if allowed, else the nearest allowed rank (ties to the
    weaker, which costs less); an unset or unknown value becomes medium, or the first allowed.

    ``None`` when nothing is allowed, so the parameter is left out.
    """
    if not allowed:
        return None
    level = (requested or "").strip().lower()
    if level not in LEVELS:
        return DEFAULT_LEVEL if DEFAULT_LEVEL in allowed else allowed[0]
    if level in allowed:
        return level
    rank = LEVELS.index(level)
    return min(allowed, key=lambda other: (abs(LEVELS.index(other) - rank), LEVELS.index(other)))


def check_effort_value(value: str) -> str:
    """A level the user typed, lower-cased; refused when it names no level, so a typo is not
    silently clamped to medium."""
    level = value.strip().lower()
    if level not in LEVELS:
        raise VaultctxError(
            f"unknown reasoning effort {value!r}",
            f"use one of {', '.join(LEVELS)}",
        )
    return level


def effort_model_settings(backend: str, model: str, effort: str | None) -> ModelSettings:
    """The pydantic-ai settings that send ``effort``, clamped to ``model``, in the backend's own
    request field; ``{}`` (the field left out) when the model takes no effort."""
    level = clamp_effort(effort, allowed_efforts(backend, model))
    if level is None:
        return {}
    # The keys belong to ModelSettings' per-backend subclasses, which a model merges in.
    return cast("ModelSettings", _settings_for(backend, model, level))


def _settings_for(backend: str, model: str, level: str) -> dict[str, Any]:
    """One backend's field: see the module docstring for why these keys and not ``thinking``."""
    if backend == "openai":
        return {"openai_reasoning_effort": level}  # -> reasoning_effort, or reasoning.effort
    if backend == "gemini":
        # -> generationConfig.thinkingConfig.thinkingLevel, in the API's enum spelling ("LOW").
        # google-genai writes the key as thinking_level; the API's proto JSON takes both.
        return {"google_thinking_config": {"thinking_level": level.upper()}}
    if _CLAUDE_ID.search(model):
        fields: dict[str, Any] = {"output_config": {"effort": level}}
    else:
        fields = {"reasoning": {"effort": level}}
    return {"bedrock_additional_model_requests_fields": fields}  # -> additionalModelRequestFields
