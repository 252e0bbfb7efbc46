"""The configured backend as a ``TextModel``: one prompt, one answer, no tools, no retrieval.

The Second Brain, ``clip``, ``tags``, ``para`` and ``triage`` each ask the model one bounded
question; they get this object, and every backend failure arrives as one ``BackendFailure``
line naming the fix, the same as in ``vaultctx ask``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.agent.backends import Backend, build_backend
from vaultctx.agent.failures import describe_failure

if TYPE_CHECKING:
    from vaultctx.agent.settings import AgentSettings


class BackendTextModel:
    def __init__(self, settings: AgentSettings, backend: Backend | None = None) -> None:
        self.settings = settings
        self.backend = backend or build_backend(settings)
        self.name = f"{self.backend.name} {self.backend.model_name}"

    async def complete(self, system: str, prompt: str, *, max_tokens: int) -> str:
        import pydantic_ai
        from pydantic_ai import Agent
        from pydantic_ai import exceptions as errors

        pydantic_ai.BANNER_ENABLED = False
        agent: Agent[None, str] = Agent(self.backend.model, instructions=system)
        try:
            result = await agent.run(prompt, model_settings={"max_tokens": max_tokens})
        except (errors.AgentRunError, errors.UserError, OSError) as exc:
            raise describe_failure(
                exc,
                backend=self.backend.name,
                model=self.backend.model_name,
                endpoint=self.backend.endpoint,
                secret=self.settings.api_key_secret,
            ) from exc
        return result.output
