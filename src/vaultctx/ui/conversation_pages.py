"""The saved conversations in the browser: list, search, read, export.

The same store and the same markdown as ``vaultctx conversations`` (docs/conversations.md); a
vault without saved conversations reads as empty, and nothing here creates the store.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from vaultctx.conversations import ConversationStore
from vaultctx.conversations.export import UNTITLED, conversation_markdown
from vaultctx.errors import VaultctxError
from vaultctx.ui.render import render_markdown
from vaultctx.vault.note import parse_note

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ui.pages import Pages

LISTED = 50


def conversations(pages: Pages, request: Request) -> Response:
    query = request.query_params.get("q", "").strip()
    values: dict[str, Any] = {"query": query, "untitled": UNTITLED, "problem": None}
    try:
        with ConversationStore.open(pages.vault.path, create=False) as store:
            if query:
                values["hits"] = [
                    {"hit": hit, "snippet": render_markdown(hit.snippet).html}
                    for hit in store.search(query, limit=LISTED)
                ]
            else:
                values["listed"] = store.list(limit=LISTED)
    except VaultctxError as exc:
        values["problem"] = exc
    return pages.page(request, "conversations.html", **values)


def conversation(
    pages: Pages, request: Request, conversation_id: str | None = None, **values: Any
) -> Response:
    try:
        chat = _get(pages, conversation_id or request.query_params.get("id", ""))
    except VaultctxError as exc:
        return pages.error(request, exc, 404)
    body = parse_note("conversation.md", conversation_markdown(chat)).body
    code = 409 if values.get("refused") else 200
    return pages.page(
        request,
        "conversation.html",
        code,
        chat=chat,
        untitled=UNTITLED,
        rendered=render_markdown(body),
        **values,
    )


async def harvest(pages: Pages, request: Request) -> Response:
    """The conversation's conclusions as a note of the wiki (``vaultctx conversations harvest``),
    with the Chat page's model; the page again, saying where the note went or why not."""
    form = await request.form()
    wanted = str(form.get("id", ""))
    return await run_in_threadpool(_harvest, pages, request, wanted)


def _harvest(pages: Pages, request: Request, wanted: str) -> Response:
    from vaultctx.brain.harvest import harvest_saved
    from vaultctx.brain.wiki import enabled_settings
    from vaultctx.ui.review_page import configured_model

    def run(vault: Vault) -> Any:
        enabled_settings(vault)
        model = configured_model(vault)
        return asyncio.run(harvest_saved(vault, model, chat.id, source="cli"))

    try:
        chat = _get(pages, wanted)
    except VaultctxError as exc:
        return pages.error(request, exc, 404)
    try:
        return conversation(pages, request, chat.id, harvested=pages.call(run))
    except VaultctxError as exc:
        return conversation(pages, request, chat.id, refused=exc)


def export(pages: Pages, request: Request) -> Response:
    """The conversation as a markdown file to save (``vaultctx conversations export``)."""
    try:
        chat = _get(pages, request.query_params.get("id", ""))
    except VaultctxError as exc:
        return pages.error(request, exc, 404)
    return Response(
        conversation_markdown(chat),
        media_type="text/markdown; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="conversation-{chat.id}.md"'},
    )


def _get(pages: Pages, conversation_id: str) -> Any:
    if not conversation_id.isalnum():
        raise VaultctxError(
            f"no conversation {conversation_id!r}", "open one from the Conversations page"
        )
    with ConversationStore.open(pages.vault.path, create=False) as store:
        return store.get(conversation_id)
