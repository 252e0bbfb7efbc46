"""Google's Gemini API through google-genai, with its retries turned off so a failure is
reported rather than hidden for a minute."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vaultctx.agent.llm_backends.base import (
    IMAGE_TYPES,
    PDF_TYPES,
    ConnectionSettings,
    LLMBackend,
    ModelInfo,
    WebSearch,
)

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel
    from pydantic_ai.models import Model

    from vaultctx.embed.base import Embedder

# The Gemini API's address when no base_url is set, for messages (the client knows its own).
GEMINI_ENDPOINT = "https://generativelanguage.googleapis.com"
_GEMINI_PRO = ("low", "high")
_GEMINI = ("minimal", "low", "medium", "high")
_GEMINI_ID = re.compile(r"gemini-(\d+)")


class GeminiBackend(LLMBackend):
    name = "gemini"
    packages = ("pydantic_ai", "google.genai")
    # batchEmbedContents takes up to 100 texts.
    embed_batch_texts = 100
    attachment_types = IMAGE_TYPES | PDF_TYPES

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        from vaultctx.agent.secrets import require_secret

        key = require_secret(settings.api_key_secret, self.name)
        provider = GoogleProvider(api_key=key, base_url=settings.base_url)
        _no_google_retries(provider)
        return GoogleModel(model_name, provider=provider), settings.base_url or GEMINI_ENDPOINT

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[EmbeddingModel, str]:
        from google.genai.types import HttpRetryOptions
        from pydantic_ai.embeddings.google import GoogleEmbeddingModel
        from pydantic_ai.providers.google import GoogleProvider

        from vaultctx.agent.remote_embed import embedding_key

        # One attempt, as for the other providers: a failure is reported rather than hidden.
        provider = GoogleProvider(
            api_key=embedding_key(settings),
            base_url=settings.base_url,
            retry_options=HttpRetryOptions(attempts=1),
        )
        model = GoogleEmbeddingModel(settings.model or "", provider=provider)
        return model, settings.base_url or GEMINI_ENDPOINT

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        from google import genai
        from google.genai import types

        from vaultctx.agent.secrets import require_secret

        key = require_secret(settings.api_key_secret, self.name)
        options = types.HttpOptions(base_url=settings.base_url) if settings.base_url else None
        client = genai.Client(api_key=key, http_options=options)
        found = []
        async for model in await client.aio.models.list():
            name = (model.name or "").removeprefix("models/")
            actions = model.supported_actions or []
            if "embedContent" in actions:
                found.append(ModelInfo(name, "embedding"))
            if "generateContent" in actions:
                found.append(ModelInfo(name, "chat"))
        return found

    def client_errors(self) -> tuple[type[BaseException], ...]:
        from google.genai.errors import APIError

        return (APIError, *super().client_errors())

    def allowed_efforts(self, model: str) -> tuple[str, ...]:
        """Gemini 3 and later take a thinking level; Pro takes only two of them."""
        model = model.removeprefix("models/")
        match = _GEMINI_ID.match(model)
        if match is None or int(match[1]) < 3:
            return ()
        return _GEMINI_PRO if "-pro" in model else _GEMINI

    def web_search(self, model: str) -> WebSearch | None:
        """Google Search grounding: pydantic-ai sends it as the ``google_search`` tool."""
        from pydantic_ai.native_tools import WebSearchTool

        return WebSearch((WebSearchTool(),), "Google Search grounding")

    def effort_settings(self, model: str, level: str) -> dict[str, Any]:
        # -> generationConfig.thinkingConfig.thinkingLevel, in the API's enum spelling ("LOW").
        # google-genai writes the key as thinking_level; the API's proto JSON takes both.
        return {"google_thinking_config": {"thinking_level": level.upper()}}


BACKEND = GeminiBackend()


def embedding_engine(model: str) -> Embedder:
    """The ``vaultctx.engines`` entry point of this backend's embedding models (pyproject.toml)."""
    from vaultctx.agent.remote_embed import remote_engine

    return remote_engine(BACKEND.name, model)


def _no_google_retries(provider: Any) -> None:
    """google-genai retries 429 and 5xx on its own (for up to a minute): off, as for OpenAI."""
    client = getattr(provider, "client", None)
    options = getattr(getattr(client, "_api_client", None), "_http_options", None)
    if options is not None and hasattr(options, "retry_options"):
        from google.genai import types

        options.retry_options = types.HttpRetryOptions(attempts=1)
