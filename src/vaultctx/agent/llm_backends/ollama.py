"""Ollama on the user's own machine: its OpenAI-compatible API under ``/v1`` for chat and
embeddings, its native ``/api`` for the model list. No key, no reasoning effort."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.agent.llm_backends.base import (
    ConnectionSettings,
    LLMBackend,
    ModelInfo,
    kind_by_name,
)
from vaultctx.agent.llm_backends.openai import OpenAIBackend, openai_client

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel
    from pydantic_ai.models import Model

    from vaultctx.embed.base import Embedder

# Ollama needs no key; a placeholder keeps the client from sending OPENAI_API_KEY there.
PLACEHOLDER_KEY = "ollama"


class OllamaBackend(LLMBackend):
    name = "ollama"
    default_base_url = "http://localhost:11434"
    packages = OpenAIBackend.packages  # its client is OpenAI's
    # Ollama embeds a list in one call, on the user's own hardware: a modest list answers well
    # within the timeout.
    embed_batch_texts = 64
    unreachable_fix = "start Ollama (`ollama serve`) or set base_url under [agent] to where it runs"

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        from pydantic_ai.models.ollama import OllamaModel
        from pydantic_ai.providers.ollama import OllamaProvider

        root = self.root(settings)
        client = openai_client(f"{root}/v1", PLACEHOLDER_KEY, settings.timeout)
        return OllamaModel(model_name, provider=OllamaProvider(openai_client=client)), root

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[EmbeddingModel, str]:
        from pydantic_ai.embeddings.openai import OpenAIEmbeddingModel
        from pydantic_ai.providers.ollama import OllamaProvider

        root = self.root(settings)
        client = openai_client(f"{root}/v1", PLACEHOLDER_KEY, settings.timeout)
        provider = OllamaProvider(openai_client=client)
        return OpenAIEmbeddingModel(settings.model or "", provider=provider), root

    def root(self, settings: ConnectionSettings) -> str:
        """Ollama's own address: its OpenAI-compatible API is under ``/v1``, the native one
        under ``/api``; a base_url given either way is accepted."""
        root = self.endpoint(settings) or ""
        return root[: -len("/v1")] if root.endswith("/v1") else root

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        """From the native ``/api/tags`` and ``/api/show``, which the OpenAI-compatible API lacks:
        ``show`` says which models embed."""
        import httpx

        async with httpx.AsyncClient(
            base_url=self.root(settings), timeout=settings.timeout
        ) as client:
            tags = (await client.get("/api/tags")).raise_for_status().json()
            found = []
            for entry in tags.get("models", []):
                name = str(entry.get("name", ""))
                shown = await client.post("/api/show", json={"model": name})
                capabilities = shown.json().get("capabilities", []) if shown.is_success else []
                kind = "embedding" if "embedding" in capabilities else "chat"
                found.append(ModelInfo(name, kind if capabilities else kind_by_name(name)))
            return found

    def client_errors(self) -> tuple[type[BaseException], ...]:
        import openai

        return (openai.OpenAIError, *super().client_errors())


BACKEND = OllamaBackend()


def embedding_engine(model: str) -> Embedder:
    """The ``vaultctx.engines`` entry point of this backend's embedding models (pyproject.toml)."""
    from vaultctx.agent.remote_embed import remote_engine

    return remote_engine(BACKEND.name, model)
