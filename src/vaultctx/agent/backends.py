"""The configured chat backend as a ready pydantic-ai model, built only from what the settings
name (each backend's own module builds it: agent/llm_backends/).

pydantic-ai's providers fall back to ambient credentials (``OPENAI_API_KEY``,
``GEMINI_API_KEY``, ``AWS_*``, the default AWS profile, an EC2 role) when a key is not passed.
vaultctx never does: every client is built with an explicit key (or none, for a local server), so
an answer is always paid for by the account the user named, and a key set for some other program
is never sent to an endpoint vaultctx was pointed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultctx.agent.llm_backends.base import BackendError
from vaultctx.agent.llm_backends.registry import get_backend

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from vaultctx.agent.settings import AgentSettings

AGENT_EXTRA = "pip install 'vaultctx[agent]'"


def require_agent_extra() -> None:
    """A one-line error naming the install command when the agent's packages are missing."""
    try:
        import pydantic_ai  # noqa: F401
    except ImportError:
        raise BackendError(
            "the agent needs packages that are not installed", f"run: {AGENT_EXTRA}"
        ) from None


@dataclass(frozen=True)
class Backend:
    """A ready model and how to describe it without revealing the key."""

    name: str
    model_name: str
    endpoint: str
    model: Model


def build_backend(settings: AgentSettings) -> Backend:
    require_agent_extra()
    if not settings.model:
        raise BackendError(
            f"no {settings.backend} model is set",
            f"pass --model NAME or set model under [agent] in vaultctx.toml; "
            f"`vaultctx models --backend {settings.backend}` lists them",
        )
    model, endpoint = get_backend(settings.backend).build_model(settings, settings.model)
    return Backend(settings.backend, settings.model, endpoint, model)
