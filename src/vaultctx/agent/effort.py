"""Reasoning effort: the levels each model family takes, the clamp, and the field that sends it.

The level is chosen here, from the model id, and sent through each backend's own pydantic-ai
setting rather than the unified ``thinking`` setting. ``thinking`` resolves against pydantic-ai's
model profiles, which disagree with the families below and change the request in other ways
(checked in pydantic-ai 2.68):

- OpenAI Chat Completions folds ``max`` to ``xhigh`` unless the profile says the model takes it;
  ``openai_reasoning_effort`` is sent as ``reasoning_effort`` unchanged (and as ``reasoning.effort``
  by the Responses API, which gpt-5.4 and gpt-5.6 on take their tools through:
  agent/llm_backends/openai.py).
- Gemini adds ``includeThoughts`` and snaps the level to the profile's set;
  ``google_thinking_config`` is sent as ``generationConfig.thinkingConfig`` unchanged.
- Bedrock Claude also turns on ``thinking: {type: adaptive}`` (or a token budget on older
  models, with no effort at all), and on Opus 4.6 sends ``xhigh`` as ``max``.
  ``bedrock_additional_model_requests_fields`` is sent as ``additionalModelRequestFields``
  unchanged, and pydantic-ai adds nothing to it when ``thinking`` is unset.

So each backend's own table (``LLMBackend.allowed_efforts``, in agent/llm_backends/) decides
what is sent, and the tests read it off the wire.
Temperature is never set: reasoning models reject it, and effort replaces it. ``max_tokens`` needs
no help here: pydantic-ai already sends it to OpenAI as ``max_completion_tokens``.

This module and the backends' tables import no LLM client, so settings can validate an effort
without loading one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from vaultctx.agent.llm_backends.registry import get_backend
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from pydantic_ai.settings import ModelSettings

LEVELS = ("minimal", "low", "medium", "high", "xhigh", "max")
"""Every effort level, weakest first: the clamp moves along this order."""

DEFAULT_LEVEL = "medium"


def allowed_efforts(backend: str, model: str) -> tuple[str, ...]:
    """The levels ``model`` takes on ``backend``, weakest first; empty when it takes none.

    Each backend's module holds its families' table (agent/llm_backends/); the model id decides,
    not the endpoint: an OpenAI-compatible ``base_url`` serving ``gpt-5.4`` gets gpt-5.4's levels.
    An unknown backend is a ``ValueError`` (``UnknownBackendError``), never a silent "none".
    """
    return get_backend(backend).allowed_efforts(model)


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
    chosen = get_backend(backend)
    level = clamp_effort(effort, chosen.allowed_efforts(model))
    if level is None:
        return {}
    # The keys belong to ModelSettings' per-backend subclasses, which a model merges in.
    return cast("ModelSettings", chosen.effort_settings(model, level))
