"""The pages: each handler calls one or two ``Vault`` methods and renders a template.

Handlers are plain functions, which Starlette runs in its thread pool; one lock serialises the
calls into the shared ``Vault`` (its retriever holds one SQLite connection and the loaded models,
as the MCP server's ``VaultService`` does). Every error the user can cause (a bad filter, a path
outside the vault, an undo that is refused) is a ``VaultctxError`` and is shown on the page with
its fix, never as a traceback.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)

from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.search.filters import Filters
from vaultctx.search.ranking_constants import DEFAULT_DEPTH, MAX_DEPTH
from vaultctx.search.request import MODES, SearchRequest
from vaultctx.ui import i18n
from vaultctx.ui.chat import ChatRooms
from vaultctx.ui.reindex import IndexJob
from vaultctx.ui.render import highlight_snippet, note_url, render_markdown
from vaultctx.ui.sessions import CSRF_FIELD, CSRF_SCOPE_KEY
from vaultctx.ui.uploads import MAX_FILES, MAX_REQUEST_BYTES, read_uploads
from vaultctx.vault.note import parse_note

T = TypeVar("T")
TEMPLATES = Path(__file__).parent / "templates"
NOTE_MAX_TOKENS = 200_000  # the whole of nearly every note; longer ones say they were cut
SIMILAR_QUERY_CHARS = 2000
SIMILAR_NOTES = 6
LEDGER_SHOWN = 30
SEARCH_LIMIT = 20


@dataclass(frozen=True)
class SearchForm:
    """The search page's fields as typed; ``request`` builds the checked ``SearchRequest``."""

    query: str = ""
    folder: str = ""
    tags: str = ""
    any_tag: bool = False
    since: str = ""
    until: str = ""
    where: str = ""
    mode: str = "hybrid"
    graph: bool = False
    depth: int = DEFAULT_DEPTH

    @classmethod
    def from_request(cls, request: Request) -> SearchForm:
        params = request.query_params
        try:
            depth = int(params.get("depth", DEFAULT_DEPTH))
        except ValueError:
            depth = -1  # SearchRequest names the problem
        return cls(
            query=params.get("q", "").strip(),
            folder=params.get("folder", "").strip(),
            tags=params.get("tags", "").strip(),
            any_tag=_checked(params.get("any_tag")),
            since=params.get("since", "").strip(),
            until=params.get("until", "").strip(),
            where=params.get("where", "").strip(),
            mode=params.get("mode", "hybrid"),
            graph=_checked(params.get("graph")),
            depth=depth,
        )

    def request(self) -> SearchRequest:
        filters = Filters(
            folder=self.folder or None,
            tags=[tag.strip() for tag in self.tags.split(",") if tag.strip()],
            any_tag=self.any_tag,
            since=self.since or None,
            until=self.until or None,
            where=[line for line in self.where.splitlines() if line.strip()],
        )
        return SearchRequest(
            self.query,
            limit=SEARCH_LIMIT,
            mode=self.mode,  # type: ignore[arg-type]  # checked by SearchRequest
            filters=filters,
            graph=self.graph,
            depth=self.depth,
        )


def _checked(value: str | None) -> bool:
    """A checkbox's value as browsers (``on``, ours ``1``) and hand-written URLs send it."""
    return value in ("1", "on", "true")


def obsidian_link(vault: Path, note_path: str) -> str:
    """``obsidian://open`` for the note: Obsidian names a vault by its folder's name."""
    file = note_path[:-3] if note_path.lower().endswith(".md") else note_path
    return f"obsidian://open?vault={quote(vault.name, safe='')}&file={quote(file, safe='')}"


class Pages:
    """The UI's handlers over one ``Vault``."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._lock = threading.Lock()
        self.job = IndexJob(vault)
        self.rooms = ChatRooms(vault)
        self.templates = Environment(
            loader=FileSystemLoader(TEMPLATES),
            autoescape=select_autoescape(["html"], default_for_string=True, default=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.globals["note_url"] = note_url

    def call(self, action: Callable[[Vault], T]) -> T:
        with self._lock:
            return action(self.vault)

    def warm_up(self) -> None:
        """Load the index and the query models before the first search asks for them."""
        try:
            self.call(lambda vault: vault.search(SearchRequest("warm up", limit=1)))
            self.call(lambda vault: vault.retriever().hold_vectors_in_memory())
        except VaultctxError:
            pass  # no index yet: the Status page says so and offers to build it

    # -- rendering ------------------------------------------------------------------------

    def page(self, request: Request, template: str, code: int = 200, **values: Any) -> Response:
        language = i18n.choose_language(
            request.cookies.get(i18n.LANGUAGE_COOKIE), request.headers.get("accept-language")
        )

        def t(key: str, **fill: object) -> str:
            return i18n.translate(language, key, **fill)

        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        if request.scope.get("method", "GET") != "GET":  # a form's answer: back to its page
            here = request.url.path.rsplit("/", 1)[0] or "/"
        html = self.templates.get_template(template).render(
            t=t,
            lang=language,
            languages=i18n.LANGUAGES,
            here=here,
            path=request.url.path,
            csrf_field=CSRF_FIELD,
            csrf_token=request.scope.get(CSRF_SCOPE_KEY, ""),
            **values,
        )
        return HTMLResponse(html, status_code=code)

    def error(self, request: Request, exc: VaultctxError, code: int = 400) -> Response:
        return self.page(request, "error.html", code, error=exc)

    # -- search ---------------------------------------------------------------------------

    def search(self, request: Request) -> Response:
        form = SearchForm.from_request(request)
        return self.page(request, "search.html", **self._results(form))

    def search_results(self, request: Request) -> Response:
        """Only the results: the page's script swaps them in without reloading."""
        form = SearchForm.from_request(request)
        return self.page(request, "results.html", **self._results(form))

    def _results(self, form: SearchForm) -> dict[str, Any]:
        values: dict[str, Any] = {
            "form": form,
            "modes": MODES,
            "max_depth": MAX_DEPTH,
            "response": None,
            "problem": None,
            "results": [],
        }
        if not form.query:
            return values
        try:
            search = form.request()
            response = self.call(lambda vault: vault.search(search))
        except VaultctxError as exc:
            values["problem"] = exc
            return values
        values["response"] = response
        values["results"] = [
            {"result": result, "snippet": highlight_snippet(result.text, form.query)}
            for result in response.results
        ]
        return values

    # -- one note -------------------------------------------------------------------------

    def note(self, request: Request) -> Response:
        path = request.query_params.get("path", "")
        try:
            note = self.call(lambda vault: vault.read_note(path, max_tokens=NOTE_MAX_TOKENS))
        except VaultctxError as exc:
            return self.error(request, exc, 404)
        body = parse_note(note.path, note.text).body if note.section is None else note.text
        rendered = render_markdown(body)
        try:
            links = self.call(lambda vault: vault.links(note.path))
            outlinks, backlinks = links.outlinks, links.backlinks
        except VaultctxError:
            outlinks, backlinks = [], []
        return self.page(
            request,
            "note.html",
            note=note,
            rendered=rendered,
            outlinks=outlinks,
            backlinks=backlinks,
            similar=self._similar(note.path, body or note.title),
            obsidian=obsidian_link(self.vault.path, note.path),
        )

    def _similar(self, path: str, text: str) -> list[Any]:
        """Notes nearest to this one in vector space (its first passage stands for it)."""
        query = " ".join(text.split())[:SIMILAR_QUERY_CHARS]
        if not query:
            return []
        try:
            search = SearchRequest(query, limit=SIMILAR_NOTES + 1, mode="vector", notes=True)
            response = self.call(lambda vault: vault.search(search))
        except VaultctxError:
            return []
        return [r for r in response.results if r.file_path != path][:SIMILAR_NOTES]

    # -- chat -----------------------------------------------------------------------------

    def chat(self, request: Request) -> Response:
        """A new conversation, or (``?continue=ID``) a saved one shown and carried on."""
        from vaultctx.agent.effort import LEVELS
        from vaultctx.ui.chat import earlier_turns

        key = secrets.token_urlsafe(18)
        values: dict[str, Any] = {"chat_key": key, "efforts": LEVELS, "continued": None}
        wanted = request.query_params.get("continue", "")
        if wanted:
            try:
                values["continued"], values["earlier"] = earlier_turns(self.vault.path, wanted)
            except VaultctxError as exc:
                return self.error(request, exc, 404)
        return self.page(request, "chat.html", **values)

    async def chat_ask(self, request: Request) -> Response:
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > MAX_REQUEST_BYTES:
            too_big = VaultctxError(
                f"a question with its files may have at most {MAX_REQUEST_BYTES // 1_000_000} MB",
                "attach fewer or smaller files",
            )
            refusal = self.rooms.stream("", "", refused=too_big)
            return StreamingResponse(refusal, media_type="text/event-stream", status_code=413)
        form = await request.form(max_files=MAX_FILES + 1, max_fields=20)
        uploads = [item for item in form.getlist("attach") if isinstance(item, UploadFile)]
        refused: VaultctxError | None = None
        try:
            attachments = await read_uploads(uploads)
        except VaultctxError as exc:
            attachments, refused = [], exc
        stream = self.rooms.stream(
            str(form.get("chat", "")),
            str(form.get("question", "")),
            str(form.get("effort", "")),
            attachments=attachments,
            refused=refused,
            conversation=str(form.get("conversation", "")),
            web=form.get("web") == "on",
            regenerate=form.get("regenerate") == "1",
        )
        return StreamingResponse(stream, media_type="text/event-stream")

    async def chat_confirm(self, request: Request) -> Response:
        form = await request.form()
        decided = self.rooms.decide(str(form.get("id", "")), str(form.get("decision", "")))
        return JSONResponse({"decided": decided}, status_code=200 if decided else 404)

    # -- changes --------------------------------------------------------------------------

    def changes(self, request: Request, **values: Any) -> Response:
        def read(vault: Vault) -> list[tuple[Any, list[Any]]]:
            return [(record, vault.ledger_diffs(record)) for record in vault.ledger(LEDGER_SHOWN)]

        try:
            records = self.call(read)
        except VaultctxError as exc:
            return self.error(request, exc)
        code = 409 if values.get("refused") else 200
        return self.page(request, "changes.html", code, records=records, **values)

    async def undo(self, request: Request) -> Response:
        form = await request.form()
        wanted = str(form.get("record", ""))
        return await run_in_threadpool(self._undo, request, wanted)

    def _undo(self, request: Request, wanted: str) -> Response:
        """Undo the newest change, if it is still the one the user saw and pressed."""

        def undo_if_newest(vault: Vault) -> Any:
            newest = vault.ledger(1)
            if not newest or newest[0].id != wanted:
                raise VaultctxError(
                    f"the change {wanted} is no longer the newest one",
                    "reload the page: only the newest change can be undone",
                )
            return vault.undo()

        try:
            report = self.call(undo_if_newest)
        except VaultctxError as exc:
            return self.changes(request, refused=exc)
        return self.changes(request, undone=report)

    # -- status ---------------------------------------------------------------------------

    def status(self, request: Request) -> Response:
        # The run's state first, then the counts: a run that ends between the two reads then
        # shows as running, and the page's script reloads it. Read the other way round, a run
        # ending in between showed "done" beside the counts from before it, and stayed so.
        job = self.job.snapshot()
        status = self.call(lambda vault: vault.status())
        doctor = self.call(lambda vault: vault.doctor()) if status.exists else None
        last = status.last_run or {}
        finished = last.get("finished_at")
        return self.page(
            request,
            "status.html",
            status=status,
            doctor=doctor,
            last_run=last,
            last_run_time=(
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(finished)))
                if finished
                else None
            ),
            job=job,
        )

    def progress(self, request: Request) -> Response:
        return JSONResponse(self.job.snapshot().as_dict())

    def reindex(self, request: Request) -> Response:
        self.job.start()
        return RedirectResponse("/status", status_code=303)

    # -- language -------------------------------------------------------------------------

    async def language(self, request: Request) -> Response:
        """A POST like every other change: a page of another port cannot flip it (the guard)."""
        form = await request.form()
        chosen = str(form.get("set", ""))
        target = str(form.get("next", "/"))
        if not target.startswith("/") or target.startswith(("//", "/\\")):
            target = "/"  # only pages of this server: never an open redirect
        response = RedirectResponse(target, status_code=303)
        if chosen in i18n.LANGUAGES:
            response.set_cookie(
                i18n.LANGUAGE_COOKIE, chosen, max_age=365 * 86400, httponly=True, samesite="strict"
            )
        return response
