"""Questions asked in one language over notes written in another.

The bundled embedders are English-only and BM25 matches words, so "how do I rotate keys" finds
nothing in Korean notes. With a backend configured, the question is also translated by the model
into the notes' language, both are searched, and the two rankings fused (agent/retrieval.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from vaultctx.agent.retrieval import fuse_results, translation_target
from vaultctx.search.budget import fit_to_budget

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from vaultctx.agent.settings import AgentSettings
    from vaultctx.api import Vault
    from vaultctx.search.request import SearchRequest
    from vaultctx.search.retriever import SearchResponse

# A translated query longer than this is not a translation of a search query.
MAX_TRANSLATION_CHARS = 500


async def translate_query(model: Model, question: str, language: str) -> str | None:
    """``question`` in ``language``, or None when the backend cannot say: the search then runs
    on the question alone rather than failing."""
    from pydantic_ai import Agent
    from pydantic_ai import exceptions as errors

    agent: Agent[None, str] = Agent(
        model,
        instructions=(
            f"Translate the user's search query into {language}. Reply with the translation "
            "only: no quotes, no explanation."
        ),
    )
    try:
        result = await agent.run(question, model_settings={"max_tokens": 200})
    except (errors.AgentRunError, errors.UserError):
        return None
    text = result.output.strip().strip('"').strip()
    return text[:MAX_TRANSLATION_CHARS] or None


def search_translated(
    vault: Vault, request: SearchRequest, settings: AgentSettings
) -> SearchResponse:
    """``vault.search(request)``, plus the same search for the query's translation when the
    query's language is not the notes' (``vaultctx search --translate``)."""
    from vaultctx.agent.backends import build_backend

    response = vault.search(request)
    target = translation_target(request.query, vault.korean_share())
    if target is None:
        return response
    backend = build_backend(settings)
    translated = asyncio.run(translate_query(backend.model, request.query, target))
    if not translated or translated == request.query:
        return response
    other = vault.search(replace(request, query=translated))
    fused = fuse_results([response.results, other.results], request.limit)
    texts = fit_to_budget([result.text for result in fused], request.max_tokens)
    fused = [replace(r, text=text) for r, text in zip(fused, texts, strict=False)]
    notices = [*response.notices, f"also searched the {target} translation: {translated}"]
    return replace(
        response, results=fused, took_ms=response.took_ms + other.took_ms, notices=notices
    )
