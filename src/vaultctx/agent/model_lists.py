"""The chat and embedding models a backend reports, for ``vaultctx models``.

Each list comes from the backend itself, through its own client library (Ollama's native
``/api/tags`` and ``/api/show``, which its OpenAI-compatible API lacks, through httpx), so the
list is what this key, region or server can really use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vaultctx.agent.backends import bedrock_client, ollama_root, openai_client
from vaultctx.agent.failures import BackendFailure
from vaultctx.agent.secrets import require_secret
from vaultctx.agent.settings import DEFAULT_REGION, AgentSettings


@dataclass(frozen=True)
class ModelInfo:
    name: str
    kind: str  # "chat" or "embedding"

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind}


async def list_models(settings: AgentSettings) -> list[ModelInfo]:
    lister = {"openai": _openai, "ollama": _ollama, "gemini": _gemini, "bedrock": _bedrock}
    try:
        found = await lister[settings.backend](settings)
    except _client_errors() as exc:
        raise _listing_failure(exc, settings) from None
    return sorted(set(found), key=lambda m: (m.kind, m.name))


def _client_errors() -> tuple[type[BaseException], ...]:
    """The client libraries' own error bases: anything else is a bug and stays one."""
    import httpx
    import openai
    from botocore.exceptions import BotoCoreError, ClientError
    from google.genai.errors import APIError

    return (openai.OpenAIError, httpx.HTTPError, APIError, BotoCoreError, ClientError)


def _listing_failure(exc: BaseException, settings: AgentSettings) -> BackendFailure:
    """The same one-line messages as a failed answer, keyed on the HTTP status."""
    where = f"{settings.backend} at {settings.endpoint() or 'its default address'}"
    status = _status_code(exc)
    if status in (401, 403):
        secret = settings.api_key_secret or settings.backend
        return BackendFailure(
            f"{where} refused the key (HTTP {status})",
            f"store the right key with `vaultctx secret set {secret}`",
        )
    if status == 429:
        return BackendFailure(f"{where} is rate limiting requests", "try again in a minute")
    if status is not None:
        return BackendFailure(f"{where} failed to list models (HTTP {status})", "try again later")
    fix = (
        "start Ollama (`ollama serve`) or set base_url under [agent]"
        if settings.backend == "ollama"
        else "check your network and base_url under [agent] in vaultctx.toml"
    )
    return BackendFailure(f"cannot reach {where} ({type(exc).__name__})", fix)


def _status_code(exc: BaseException) -> int | None:
    for value in (
        getattr(exc, "status_code", None),
        getattr(exc, "code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
    ):
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        return status if isinstance(status, int) else None
    return None


def _kind(name: str) -> str:
    return "embedding" if "embed" in name.lower() else "chat"


async def _openai(settings: AgentSettings) -> list[ModelInfo]:
    key = require_secret(settings.api_key_secret, "openai")
    client = openai_client(settings.endpoint() or "", key, settings.timeout)
    async with client:
        page = await client.models.list()
        return [ModelInfo(model.id, _kind(model.id)) async for model in page]


async def _ollama(settings: AgentSettings) -> list[ModelInfo]:
    import httpx

    root = ollama_root(settings)
    async with httpx.AsyncClient(base_url=root, timeout=settings.timeout) as client:
        tags = (await client.get("/api/tags")).raise_for_status().json()
        found = []
        for entry in tags.get("models", []):
            name = str(entry.get("name", ""))
            shown = await client.post("/api/show", json={"model": name})
            capabilities = shown.json().get("capabilities", []) if shown.is_success else []
            kind = "embedding" if "embedding" in capabilities else "chat"
            found.append(ModelInfo(name, kind if capabilities else _kind(name)))
        return found


async def _gemini(settings: AgentSettings) -> list[ModelInfo]:
    from google import genai
    from google.genai import types

    key = require_secret(settings.api_key_secret, "gemini")
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


async def _bedrock(settings: AgentSettings) -> list[ModelInfo]:
    import asyncio

    return await asyncio.to_thread(_bedrock_sync, settings)


def _bedrock_sync(settings: AgentSettings) -> list[ModelInfo]:
    client: Any = bedrock_client("bedrock", settings, settings.region or DEFAULT_REGION)
    found = []
    for modality, kind in (("TEXT", "chat"), ("EMBEDDING", "embedding")):
        response = client.list_foundation_models(byOutputModality=modality)
        found += [ModelInfo(m["modelId"], kind) for m in response.get("modelSummaries", [])]
    profiles = client.list_inference_profiles()
    found += [
        ModelInfo(p["inferenceProfileId"], "chat")
        for p in profiles.get("inferenceProfileSummaries", [])
    ]
    return found
