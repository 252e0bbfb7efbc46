"""The Obsidian plugin's JSON API: ``POST /vaultctx/obsidian/<action>`` on ``vaultctx ui``,
``serve --http`` and the engine's plugin socket (``engine.plugin_socket``).

The plugin calls through Obsidian's ``requestUrl``, which runs outside the page (no CORS, no
cookie jar, no streaming) and sends ``Origin: app://obsidian.md``. So these routes take the
bearer token like the CLI's endpoint (``loopback.guard``: a loopback peer and Host, a JSON body,
the run's token) and accept no Origin but Obsidian's own, which no web page can send. An answer
streams as a long poll: ``chat`` starts a turn, ``poll`` returns its events after the ones
already seen, waiting up to ``POLL_SECONDS`` for new ones. Everything answered is data (JSON);
the plugin shows notes and answers through Obsidian's renderer or as text, never as markup.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vaultctx.errors import VaultctxError
from vaultctx.loopback.guard import guarded_body
from vaultctx.loopback.server_link import OBSIDIAN_PREFIX
from vaultctx.search.request import MODES, SearchRequest
from vaultctx.ui.chat import Question
from vaultctx.ui.plugin_attachments import MAX_ENCODED_BYTES, plugin_attachments
from vaultctx.ui.plugin_conversations import listed_conversations, saved_turns

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ui.pages import Pages

OBSIDIAN_ORIGIN = "app://obsidian.md"  # what requestUrl sends on desktop
MAX_BODY_BYTES = 256 * 1024  # a question with its selection; notes never travel to the server
# ``chat`` alone may carry files from disk (the vault's own go by path): the Chat page's limit.
# ``opens`` carries a few note paths at most.
BODY_BYTES = {"chat": MAX_ENCODED_BYTES, "opens": 64 * 1024}
POLL_SECONDS = 10.0
KEPT_TURNS = 20
MAX_SELECTION_CHARS = 4000
SEARCH_LIMIT = 20
LEDGER_SHOWN = 20

Handler = Callable[["PluginApi", dict[str, Any]], Awaitable[Any]]


@dataclass
class TurnBuffer:
    """One turn's events as they arrive, until the plugin has read them."""

    events: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def add(self, kind: str, data: Any) -> None:
        self.events.append({"kind": kind, "data": data})
        self.arrived.set()


def plugin_question(question: str, note: str, selection: str) -> str:
    """The question as the model reads it: the selection travels with it, quoted, since
    ``get_active_note`` gives the whole note but not what the user marked in it."""
    selection = selection.strip()[:MAX_SELECTION_CHARS]
    if not selection:
        return question
    quoted = "\n".join(f"> {line}" for line in selection.splitlines())
    where = f" in {note}" if note else ""
    return f"{question}\n\nSelected text{where}:\n{quoted}"


def _text(body: dict[str, Any], name: str, limit: int = 20_000) -> str:
    value = body.get(name, "")
    if not isinstance(value, str) or len(value) > limit:
        raise VaultctxError(
            f"`{name}` must be text of at most {limit} characters", "update the vaultctx plugin"
        )
    return value


class PluginApi:
    """The routes, over the UI's ``Pages`` (its vault lock, chat rooms and index job)."""

    def __init__(self, pages: Pages, token: str | None, *, same_user_socket: bool = False) -> None:
        """``token`` None only for ``serve --http --no-token``, which the user asked for, and
        on the engine's plugin socket (``same_user_socket``), whose server checks each peer's
        uid: there the kernel, not a token, says who calls."""
        self.pages = pages
        self.token = token
        self.same_user_socket = same_user_socket
        self.turns: OrderedDict[str, TurnBuffer] = OrderedDict()

    def endpoints(self) -> list[tuple[str, Callable[[Request], Awaitable[Response]]]]:
        """(path, handler) of every action, for ``serve --http``'s custom routes."""
        return [
            (OBSIDIAN_PREFIX + name, self._endpoint(handler, BODY_BYTES.get(name, MAX_BODY_BYTES)))
            for name, handler in ACTIONS.items()
        ]

    def routes(self) -> list[Route]:
        return [Route(path, endpoint, methods=["POST"]) for path, endpoint in self.endpoints()]

    def _endpoint(self, handler: Handler, limit: int) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            body = await guarded_body(
                _without_obsidian_origin(request),
                self.token,
                limit,
                same_user_socket=self.same_user_socket,
            )
            if isinstance(body, Response):
                return body
            try:
                data = json.loads(body or b"{}")
                if not isinstance(data, dict):
                    raise ValueError("expected a JSON object")
            except ValueError as exc:
                return JSONResponse({"error": f"bad request: {exc}"}, status_code=400)
            try:
                return JSONResponse(await handler(self, data))
            except VaultctxError as exc:
                return JSONResponse(
                    {"error": exc.message, "suggestion": exc.suggestion}, status_code=400
                )

        return endpoint

    async def call(self, action: Callable[[Vault], Any]) -> Any:
        return await run_in_threadpool(self.pages.call, action)


def _without_obsidian_origin(request: Request) -> Request:
    """Obsidian's own Origin is no browser page: the guard sees the request without it."""
    if request.headers.get("origin") != OBSIDIAN_ORIGIN:
        return request
    scope = dict(request.scope)
    scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k != b"origin"]
    return Request(scope, request.receive)


# -- the actions ------------------------------------------------------------------------------


async def status(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    job = api.pages.job.snapshot()  # before the counts, as on the Status page (pages.status)
    state = await api.call(lambda vault: vault.status())
    return {
        "vault": state.vault,
        "indexed": state.exists,
        "files": state.files,
        "chunks": state.chunks,
        "quality_vectors": state.quality_vectors,
        "quality_chunks": state.quality_chunks,  # pass 2's share: the rest are not pending
        "job": job.as_dict(),
    }


async def search(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    query = _text(body, "query", 2000).strip()
    mode = _text(body, "mode", 20) or "hybrid"
    if not query:
        return {"results": []}
    if mode not in MODES:
        raise VaultctxError(f"unknown search mode {mode!r}", f"use one of {', '.join(MODES)}")
    request = SearchRequest(query, limit=SEARCH_LIMIT, mode=mode)  # type: ignore[arg-type]
    response = await api.call(lambda vault: vault.search(request))
    return {"results": [_result(r) for r in response.results], "took_ms": response.took_ms}


def _result(result: Any) -> dict[str, Any]:
    return {
        "path": result.file_path,
        "title": result.title,
        "heading": result.section,
        "citation": result.citation,
        "text": result.text[:600],
        "score": round(result.score, 4),
    }


async def similar(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    path = _text(body, "path", 1000)
    note = await api.call(lambda vault: vault.read_note(path, max_tokens=2000))
    found = await run_in_threadpool(api.pages._similar, note.path, note.text)
    return {"path": note.path, "results": [_result(r) for r in found]}


async def chat(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """Start a turn (or, with ``regenerate``, answer the last question again); its events are
    read with ``poll``. Attachments are read first: one that is refused refuses the question."""
    note = _text(body, "active_note", 1000)
    question = plugin_question(
        _text(body, "question"), note, _text(body, "selection", MAX_SELECTION_CHARS * 4)
    )
    regenerate = body.get("regenerate") is True
    attached = not regenerate and bool(body.get("vault_files") or body.get("files"))
    attachments = await api.call(lambda v: plugin_attachments(v, body)) if attached else []
    asked = Question(
        question,
        _text(body, "effort", 20),
        attachments,
        None,
        _text(body, "conversation", 64),
        active_note=note,
        regenerate=regenerate,
    )
    ident = secrets.token_urlsafe(12)
    buffer = TurnBuffer()
    buffer.task = asyncio.create_task(_run(api, _text(body, "chat", 64), asked, buffer))
    api.turns[ident] = buffer
    while len(api.turns) > KEPT_TURNS:
        _, old = api.turns.popitem(last=False)
        if old.task is not None:
            old.task.cancel()
    return {"turn": ident}


async def _run(api: PluginApi, key: str, asked: Question, buffer: TurnBuffer) -> None:
    try:
        async with contextlib.aclosing(api.pages.rooms.events(key, asked)) as events:
            async for kind, data in events:
                buffer.add(kind, data)
    except asyncio.CancelledError:
        buffer.add("stopped", {})
        raise
    finally:
        buffer.done = True
        buffer.arrived.set()


def _turn(api: PluginApi, body: dict[str, Any]) -> TurnBuffer:
    buffer = api.turns.get(_text(body, "turn", 64))
    if buffer is None:
        raise VaultctxError("this answer is no longer known to the server", "ask again")
    return buffer


async def poll(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    buffer = _turn(api, body)
    after = body.get("after", 0)
    if not isinstance(after, int) or after < 0:
        after = 0
    if len(buffer.events) <= after and not buffer.done:
        buffer.arrived.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(buffer.arrived.wait(), POLL_SECONDS)
    return {"events": buffer.events[after:], "done": buffer.done}


async def stop(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    buffer = _turn(api, body)
    if buffer.task is not None and not buffer.done:
        buffer.task.cancel()
    return {"stopped": True}


async def confirm(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    decided = api.pages.rooms.decide(_text(body, "id", 64), _text(body, "decision", 10))
    if not decided:
        raise VaultctxError("this question was answered or has expired", "ask again")
    return {"decided": True}


async def changes(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    def read(vault: Vault) -> list[dict[str, Any]]:
        return [
            {
                "id": record.id,
                "label": record.label,
                "created_at": record.created_at,
                "source": record.source,
                "kind": record.kind,
                "diffs": [{"path": d.path, "diff": d.diff} for d in vault.ledger_diffs(record)],
            }
            for record in vault.ledger(LEDGER_SHOWN)
        ]

    return {"records": await api.call(read)}


async def undo(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """Undo the newest change, only if it is still the one the user saw (as the Changes page)."""
    wanted = _text(body, "record", 64)

    def undo_if_newest(vault: Vault) -> Any:
        newest = vault.ledger(1)
        if not newest or (wanted and newest[0].id != wanted):
            raise VaultctxError(
                f"the change {wanted} is no longer the newest one",
                "refresh the list: only the newest change can be undone",
            )
        return vault.undo()

    report = await api.call(undo_if_newest)
    return {"undone": report.record.id, "paths": report.paths}


async def reindex(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    started = api.pages.job.start()
    return {"started": started, "job": api.pages.job.snapshot().as_dict()}


async def settings(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    from vaultctx.ui.user_settings import current_settings

    return await run_in_threadpool(current_settings, api.pages.vault.path)


async def set_setting(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """One setting into the user's own vaultctx.toml (never the vault's); what is now in force."""
    from vaultctx.agent.settings import user_config_file
    from vaultctx.ui.user_settings import current_settings, set_user_setting

    name, value = _text(body, "name", 40), body.get("value")
    await run_in_threadpool(set_user_setting, name, value, user_config_file())
    return await run_in_threadpool(current_settings, api.pages.vault.path)


async def conversations(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """The saved conversations, newest first, or those matching ``query``."""
    query = _text(body, "query", 500).strip()
    return await run_in_threadpool(listed_conversations, api.pages.vault.path, query)


async def conversation(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """One saved conversation's turns, to resume it (the next ``chat`` names it)."""
    wanted = _text(body, "id", 64)
    return await run_in_threadpool(saved_turns, api.pages.vault.path, wanted)


async def set_key(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """The backend's key into the OS keyring; the answer says it is set, never what it is."""
    from vaultctx.agent.settings import user_config_file
    from vaultctx.ui.user_settings import current_settings, store_key

    value = body.get("key")
    await run_in_threadpool(store_key, value, api.pages.vault.path, user_config_file())
    return await run_in_threadpool(current_settings, api.pages.vault.path)


async def opens(api: PluginApi, body: dict[str, Any]) -> dict[str, Any]:
    """Notes the user opened in Obsidian (``{"opens": [{"path", "at"}]}``), for the review queue;
    kept in the user state dir, never the vault. Names that are no note of the vault are counted,
    not kept. The vault's lock is not taken: an index run must not hold up a report."""
    import time

    from vaultctx.brain.reported_opens import record_reported_opens
    from vaultctx.vault.scanner import load_ignore_rules

    vault = api.pages.vault

    def record() -> dict[str, int]:
        rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
        done = record_reported_opens(vault.path, rules, body.get("opens"), time.time())
        return {"recorded": done.recorded, "refused": done.refused}

    return await run_in_threadpool(record)


ACTIONS: dict[str, Handler] = {
    "status": status,
    "search": search,
    "similar": similar,
    "chat": chat,
    "poll": poll,
    "stop": stop,
    "confirm": confirm,
    "changes": changes,
    "undo": undo,
    "reindex": reindex,
    "settings": settings,
    "set_setting": set_setting,
    "set_key": set_key,
    "conversations": conversations,
    "conversation": conversation,
    "opens": opens,
}
