"""What the Second Brain, the organisation tools and triage need from a language model: one
prompt in, one text out. They take any ``TextModel``, so they never import the agent's
backends (vaultctx.agent.complete provides the real one) and run without a model where they can.
"""

from __future__ import annotations

from typing import Protocol


class TextModel(Protocol):
    """One completion, no tools. Raises ``VaultctxError`` (a ``BackendFailure``) when the
    backend cannot answer."""

    name: str  # "openai gpt-4o-mini": shown in reports and ledger labels

    async def complete(self, system: str, prompt: str, *, max_tokens: int) -> str: ...
