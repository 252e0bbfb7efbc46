"""The chat and embedding models a backend reports, for ``vaultctx models``.

Each list comes from the backend itself, through its own client library (agent/llm_backends/),
so the list is what this key, region or server can really use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultctx.agent.failures import BackendFailure
from vaultctx.agent.llm_backends.registry import get_backend

if TYPE_CHECKING:
    from vaultctx.agent.llm_backends.base import ModelInfo
    from vaultctx.agent.settings import AgentSettings


async def list_models(settings: AgentSettings) -> list[ModelInfo]:
    backend = get_backend(settings.backend)
    try:
        found = await backend.list_models(settings)
    except backend.client_errors() as exc:
        raise _listing_failure(exc, settings) from None
    return sorted(set(found), key=lambda m: (m.kind, m.name))


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
    fix = get_backend(settings.backend).unreachable_fix
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
