"""The agent behind ``vaultctx ask`` and ``vaultctx chat``: a model loop over the vault, on one of
four LLM backends (openai, ollama, gemini, bedrock) through pydantic-ai."""
