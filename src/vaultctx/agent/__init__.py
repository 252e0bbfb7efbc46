"""The agent behind ``vaultctx ask`` and ``vaultctx chat``: a model loop over the vault, through
pydantic-ai, on any of the LLM backends in ``llm_backends/`` (one module each, found by name)."""
