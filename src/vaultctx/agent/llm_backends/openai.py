"""OpenAI's API, and any server that speaks it (vLLM, LM Studio, llama.cpp) at a ``base_url``
ending in ``/v1``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vaultctx.agent.llm_backends.base import (
    BackendError,
    ConnectionSettings,
    LLMBackend,
    ModelInfo,
    kind_by_name,
)

if TYPE_CHECKING:
    from pydantic_ai.embeddings import EmbeddingModel
    from pydantic_ai.models import Model

    from vaultctx.embed.base import Embedder

LATEST_GPT = (5, 6)
_GPT_LATEST = ("low", "medium", "high", "xhigh", "max")  # gpt-5.6 and later
_GPT_5 = ("minimal", "low", "medium", "high")  # gpt-5 to gpt-5.5
_O_SERIES = ("low", "medium", "high")
_GPT_ID = re.compile(r"gpt-(\d+)(?:\.(\d+))?")
_O_SERIES_ID = re.compile(r"o[1-9]")


class OpenAIBackend(LLMBackend):
    name = "openai"
    default_base_url = "https://api.openai.com/v1"
    packages = ("pydantic_ai", "openai")
    # OpenAI takes up to 2048 texts in one embedding request.
    embed_batch_texts = 2048

    def build_model(self, settings: ConnectionSettings, model_name: str) -> tuple[Model, str]:
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        from vaultctx.agent.secrets import require_secret

        endpoint = self.api_root(settings)
        key = require_secret(settings.api_key_secret, self.name)
        provider = OpenAIProvider(openai_client=openai_client(endpoint, key, settings.timeout))
        if openai_api(model_name) == "responses":
            return OpenAIResponsesModel(model_name, provider=provider), endpoint
        return OpenAIChatModel(model_name, provider=provider), endpoint

    def build_embedding_model(self, settings: ConnectionSettings) -> tuple[EmbeddingModel, str]:
        from pydantic_ai.embeddings.openai import OpenAIEmbeddingModel
        from pydantic_ai.providers.openai import OpenAIProvider

        from vaultctx.agent.remote_embed import embedding_key

        endpoint = self.api_root(settings)
        client = openai_client(endpoint, embedding_key(settings), settings.timeout)
        provider = OpenAIProvider(openai_client=client)
        return OpenAIEmbeddingModel(settings.model or "", provider=provider), endpoint

    def api_root(self, settings: ConnectionSettings) -> str:
        endpoint = self.endpoint(settings) or ""
        if "/v1" not in endpoint:
            raise BackendError(
                f"the OpenAI base_url {endpoint} has no /v1 in its path",
                f"give the API root including /v1, e.g. {endpoint}/v1",
            )
        return endpoint

    async def list_models(self, settings: ConnectionSettings) -> list[ModelInfo]:
        from vaultctx.agent.secrets import require_secret

        key = require_secret(settings.api_key_secret, self.name)
        client = openai_client(self.endpoint(settings) or "", key, settings.timeout)
        async with client:
            page = await client.models.list()
            return [ModelInfo(model.id, kind_by_name(model.id)) async for model in page]

    def client_errors(self) -> tuple[type[BaseException], ...]:
        import openai

        return (openai.OpenAIError, *super().client_errors())

    def allowed_efforts(self, model: str) -> tuple[str, ...]:
        return openai_efforts(model)

    def effort_settings(self, model: str, level: str) -> dict[str, Any]:
        return {"openai_reasoning_effort": level}  # -> reasoning_effort, or reasoning.effort


BACKEND = OpenAIBackend()


def embedding_engine(model: str) -> Embedder:
    """The ``vaultctx.engines`` entry point of this backend's embedding models (pyproject.toml)."""
    from vaultctx.agent.remote_embed import remote_engine

    return remote_engine(BACKEND.name, model)


def openai_client(base_url: str, key: str, timeout: float) -> Any:
    """An OpenAI-protocol client with the key it is given and no other (Ollama's too)."""
    from openai import AsyncOpenAI

    from vaultctx.agent.loop_http import loop_safe_client

    # No silent retries: a 429's Retry-After is the user's to see (agent/failures.py).
    # The HTTP client keeps a connection pool per event loop (agent/loop_http.py).
    return AsyncOpenAI(
        base_url=base_url,
        api_key=key,
        max_retries=0,
        timeout=timeout,
        http_client=loop_safe_client(timeout),
    )


def openai_api(model_name: str) -> str:
    """Which of OpenAI's APIs a chat with ``model_name`` goes through: ``responses`` for the
    models that cannot take tools with reasoning over Chat Completions, else ``chat``.

    From gpt-5.4 on, OpenAI answers a Chat Completions request that carries function tools and a
    reasoning effort other than ``none`` with a 400: "Function tools with reasoning_effort are
    not supported for gpt-5.6-sol in /v1/chat/completions. To use function tools, use
    /v1/responses or set reasoning_effort to 'none'" (OpenAI developer community, "Gpt-5.6 chat
    completion reasoning effort"). pydantic-ai refuses such a request itself before sending it
    (``OpenAIModelProfile.openai_chat_function_tools_require_reasoning_off``, verified live on
    gpt-5.4, gpt-5.6 and gpt-6, pydantic-ai 2.78's docs) and points at ``OpenAIResponsesModel``.
    Every turn offers tools, and gpt-5.6 on takes no effort of ``none``, so on Chat Completions
    each question was refused at every effort level. The Responses API carries both, and hands
    the model's reasoning back between tool rounds (OpenAI cookbook, "Better performance from
    reasoning models using the Responses API"). Other OpenAI-compatible servers (vLLM, LM Studio,
    llama.cpp) mostly serve only Chat Completions, so everything else stays there.
    """
    from pydantic_ai.providers.openai import OpenAIProvider

    profile = OpenAIProvider.model_profile(model_name) or {}
    refused = bool(profile.get("openai_chat_function_tools_require_reasoning_off", False))
    version = gpt_version(model_name)
    return "responses" if refused or (version is not None and version >= LATEST_GPT) else "chat"


def gpt_version(model: str) -> tuple[int, int] | None:
    """``gpt-5.6-sol`` is (5, 6), ``gpt-6`` (6, 0); None for a model id that is not a GPT's."""
    match = _GPT_ID.match(model)
    return (int(match[1]), int(match[2] or 0)) if match else None


def openai_efforts(model: str) -> tuple[str, ...]:
    """gpt-5 and later, and the o-series; every other OpenAI model takes no effort. The model id
    decides, not the endpoint: an OpenAI-compatible ``base_url`` serving ``gpt-5.4`` gets
    gpt-5.4's levels (and Bedrock's GPT ids too)."""
    if (version := gpt_version(model)) is not None:
        if version >= LATEST_GPT:
            return _GPT_LATEST
        return _GPT_5 if version >= (5, 0) else ()
    return _O_SERIES if _O_SERIES_ID.match(model) else ()
