"""The MCP server: four read-only tools (five writers with ``--allow-writes``) and a note
resource over one ``Vault``. The tools are declared in agent/tool_list.py and made into SDK tools
by mcp/tool_binding.py.

Everything a tool returns has been through the same API the CLI uses, then scrubbed once more as a
whole (defence in depth). The tools build the same ``SearchRequest`` and ``Filters`` values as the
CLI, which check the arguments. Failures a model can fix come back as tool results with
``isError`` and a JSON ``{error, suggestion}``, so the model can correct itself; only bugs surface
as the SDK's generic error.

Start-up is what MCP clients time: the SDK is imported here (the CLI imports this module only for
``vaultctx serve``), the vault's models and index are loaded by a background thread (over stdio
once the handshake is over, over HTTP as soon as the server runs). A tool call that arrives
first does not wait for it unless it needs a model: a hybrid search is answered from the keyword
index with a notice saying the vector models are still loading, notes are read and listed at once
(``VaultService.call_soon``); ``obsidian_get_context``, vector-mode searches and the write tools
wait. Kiwi, the Korean analyser (~330 MB), is loaded only for an index that holds Korean.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial
from typing import Any, Literal, TypeVar

import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent
from pydantic import AnyHttpUrl, BaseModel

from vaultctx import __version__
from vaultctx.api import Vault
from vaultctx.db_location import local_anchor
from vaultctx.errors import VaultctxError
from vaultctx.hooks.context import hook_excerpts
from vaultctx.index.db import IndexNeedsRebuildError
from vaultctx.index.hangul import index_has_hangul
from vaultctx.loopback import policy, server_link
from vaultctx.loopback.cli_endpoint import CliRunner, cli_endpoint
from vaultctx.loopback.hook_endpoint import add_hook_endpoint
from vaultctx.loopback.server_link import CLI_PATH
from vaultctx.loopback.serving import run_while_serving
from vaultctx.mcp import outputs
from vaultctx.mcp.readers import Readers
from vaultctx.mcp.scrubbed import ScrubMemory
from vaultctx.mcp.tool_binding import WRITE_INSTRUCTIONS, add_tools
from vaultctx.search.request import SearchRequest

log = logging.getLogger(__name__)

SERVER_NAME = "vaultctx"

INSTRUCTIONS = """\
Read-only access to the user's Obsidian vault (their personal markdown notes).
Start with obsidian_search for anything the notes might answer; cite results as `path#Section`.
Read a whole note (or one heading's section) with obsidian_read_note, browse by folder, tag,
type or date with obsidian_list_notes, and use obsidian_get_context for a ready-made block of
background on a topic. Secrets in notes are shown as [REDACTED:<kind>]."""

T = TypeVar("T")

# Every string a tool returns, scrubbed once more on its way out; remembered, as answers repeat.
SCRUBBED = ScrubMemory()


# Not plain ASCII (the ellipsis), so the multilingual model builds its full tokenizer now: else
# every plain-ASCII question builds a tokenizer of its own pieces (embed/query_pieces.py, for a
# cold CLI search), ~1.5 ms under the interpreter lock per search, for ever, in a server.
WARM_UP_QUERY = "warm up \N{HORIZONTAL ELLIPSIS}"


class VaultService:
    """The vault behind the tools.

    Writes (``call``) are serialised by one lock on ``vault``, so its retriever and indexer are
    never initialised twice or used by two worker threads at once. Reads (``read``) run side by
    side once the warm-up is over, each on a reader handle of its own (mcp/readers.py): many
    clients' searches no longer queue behind one another, nor behind a write.

    The warm-up holds that lock while the models load (seconds). Meanwhile, calls that need no
    model (``call_soon``: keyword search, reading and listing notes) run on a second handle of
    the same index, ``keywords``, with its own lock and connection, so a client's first search is
    answered at once; it is closed when the warm-up is done.
    """

    def __init__(
        self, vault: Vault, lock: threading.Lock | None = None, *, warm_korean: bool = True
    ) -> None:
        self.vault = vault
        # The engine passes the lock its CLI commands take on this vault: one lock per vault,
        # however many clients share it.
        self._lock = lock or threading.Lock()
        self._warm_korean = warm_korean
        self._warmup: threading.Thread | None = None
        self._started = 0.0
        self._opened = threading.Event()  # the index is open (or could not be): step 1 is over
        self._ready = threading.Event()  # the warm-up is over, models loaded or failed
        self._keywords_lock = threading.Lock()
        self._keywords: Vault | None = None  # set while a keyword index can answer early
        self.readers = Readers(vault, self._lock)
        # Reads that found every reader handle busy used to wait in worker threads of their own
        # (the SDK's pool: up to 40), each woken in turn under the interpreter lock; now they
        # wait in the event loop for one of as many threads as handles. Two threads more than
        # the handles measured the same on SQLite and cost PostgreSQL's readers ~1.2x the CPU
        # per search (docs/benchmarks.md).
        self._read_threads = anyio.CapacityLimiter(self.readers.size)

    def call(self, action: Callable[[Vault], T]) -> T:
        with self._damage_closes_the_readers(), self._lock, self.vault.reporting_index_damage():
            return action(self.vault)

    @contextlib.contextmanager
    def _damage_closes_the_readers(self) -> Iterator[None]:
        """A damaged index is rebuilt as a new file (the old one kept aside): the handle that met
        the damage closes itself, and every idle reader is closed too, or each would read the
        damaged file once more after the rebuild."""
        try:
            yield
        except IndexNeedsRebuildError:
            self.readers.close()
            raise

    def read(self, action: Callable[[Vault], T]) -> T:
        """``action``, which only reads, on a reader of its own beside other reads and writes;
        until the warm-up is over as ``call`` (the readers share the models it loads)."""
        if not self._ready.is_set():
            return self.call(action)
        with self._damage_closes_the_readers(), self.readers.handle() as reader:
            try:
                with reader.reporting_index_damage():
                    return action(reader)
            finally:
                self.readers.share_vectors(reader)

    def call_soon(
        self, action: Callable[[Vault], T], *, while_warming: Callable[[Vault], T] | None = None
    ) -> T:
        """``action`` as ``read`` once the warm-up is over; until then at once, on the keyword
        handle, as ``while_warming`` if given (e.g. a keyword-only search), else as ``action``.

        Only for actions that load no model while warming: on the keyword handle they would load
        it a second time (``Vault.retriever(vectors=False)`` loads none when there are keywords).
        """
        self.start_warmup()
        self._opened.wait()
        with self._keywords_lock:
            if self._keywords is not None:
                with self._keywords.reporting_index_damage():
                    return (while_warming or action)(self._keywords)
        return self.read(action)

    def threads_for(self, *, writes: bool) -> anyio.CapacityLimiter | None:
        """The worker threads a tool call may run on: reads share a few once the warm-up is over
        (each then needs a reader handle); writes, and every call while the models load (which
        may be answered at once, ``call_soon``), take the SDK's default pool (None), so none of
        them waits behind reads queued for the warm-up."""
        return None if writes or not self._ready.is_set() else self._read_threads

    @property
    def warming(self) -> bool:
        """True while the models load and keyword answers are given early (``call_soon``)."""
        return self._keywords is not None

    def warming_for(self) -> float:
        return time.monotonic() - self._started

    def start_warmup(self) -> None:
        """Load the index and the query models in the background (once), so the first search
        does not pay for them and time out in clients with short tool timeouts."""
        if self._warmup is None:
            self._started = time.monotonic()
            self._warmup = threading.Thread(target=self._warm, name="vaultctx-warmup", daemon=True)
            self._warmup.start()

    def _warm(self) -> None:
        try:
            with self._lock, self.vault.reporting_index_damage():
                self._open_keywords()
                self._opened.set()
                warm = SearchRequest(WARM_UP_QUERY, limit=1, max_tokens=50)
                self.vault.search(warm)
                if self._warm_korean and index_has_hangul(self.vault.retriever(vectors=False).db):
                    # Loads Kiwi (2-7 s, ~330 MB) only if the index holds Korean (index.hangul).
                    self.vault.search(replace(warm, query="준비", mode="bm25"))
                # A server answers many queries: rank vectors from RAM once they are loaded.
                self.vault.retriever().hold_vectors_in_memory()
        except VaultctxError as exc:
            log.warning("search is not ready yet: %s", exc.one_line())
        finally:
            self._opened.set()
            self._ready.set()
            with self._keywords_lock:
                keywords, self._keywords = self._keywords, None
            if keywords is not None:
                keywords.close()

    def _open_keywords(self) -> None:
        """The early keyword handle, only for an index with a keyword table (a vector-only
        index has nothing to answer with before its model is loaded)."""
        if not self.vault.retriever(vectors=False).has_fts:
            return
        keywords = Vault(config=self.vault.config)
        keywords.retriever(vectors=False)
        self._keywords = keywords


class WarmUpAfterHandshake:
    """Server middleware that starts the warm-up with the first message after ``initialize``.

    A stdio client spawns the server and times its answer to ``initialize``. The SDK's import is
    already ~1 s of CPU on a small machine, and loading the models meanwhile would compete with
    the handshake for the interpreter lock. The client's next message (``notifications/
    initialized``, or a first request where there is no handshake) proves the answer was sent;
    a search arriving before the warm-up is done is answered by keywords (``call_soon``).
    """

    def __init__(self, service: VaultService) -> None:
        self._service = service

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method != "initialize":
            self._service.start_warmup()
        return await call_next(ctx)


WarmUp = Literal["on start", "after handshake"]


def build_server(
    vault: Vault,
    *,
    token: str | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING",
    warm_up: WarmUp = "on start",
    allow_writes: bool = False,
    cli: CliRunner | None = None,
    service: VaultService | None = None,
) -> MCPServer[Any]:
    """The configured server; ``token`` makes every HTTP request carry ``Bearer <token>``;
    ``allow_writes`` adds the tools that change the vault (``mcp.tool_binding``); ``cli`` serves
    CLI processes' commands (``loopback.cli_endpoint``); ``service`` is a vault already shared
    with other servers (the engine's, one per vault for every relay).

    ``warm_up`` says when the models start loading: "after handshake" suits stdio, where the
    client waits for the ``initialize`` answer (see ``WarmUpAfterHandshake``).
    """
    service = service or VaultService(vault)
    plain_logging(log_level)

    @asynccontextmanager
    async def warm_on_start(_: MCPServer[Any]) -> AsyncIterator[None]:
        # Started here rather than earlier: in stdio mode the transport has by now moved stray
        # writes to fd 1 onto stderr, so nothing a model library prints can corrupt the protocol.
        if warm_up == "on start":
            service.start_warmup()
        yield

    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        title="vaultctx: your Obsidian vault",
        instructions=(
            INSTRUCTIONS.replace("Read-only access", "Access", 1) + "\n" + WRITE_INSTRUCTIONS
            if allow_writes
            else INSTRUCTIONS
        ),
        version=__version__,
        lifespan=warm_on_start,
        middleware=[WarmUpAfterHandshake(service)],
        log_level=log_level,
        **_auth(token),
    )

    async def respond(
        run: Callable[[Vault], Any],
        render: Callable[[Any], str],
        soon: bool,
        warming: Callable[[Vault], Any] | None,
        writes: bool,
    ) -> CallToolResult:
        answer = partial(
            _respond, service, run, render, soon=soon, while_warming=warming, writes=writes
        )
        return await anyio.to_thread.run_sync(answer, limiter=service.threads_for(writes=writes))

    add_tools(server, respond, service.warming_for, allow_writes=allow_writes)
    _add_note_resource(server, service)
    add_hook_endpoint(server, service.read, token, hook_excerpts)
    if cli is not None:
        route = server.custom_route(CLI_PATH, methods=["POST"], include_in_schema=False)
        route(cli_endpoint(service.call, token, cli))
        _add_obsidian_routes(server, vault, token)
    return server


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def plain_logging(level: str) -> None:
    """One plain line per record on stderr, set before the SDK would install rich's handler
    (``logging.basicConfig`` does nothing once the root logger has a handler; the engine's own
    log file is kept as it is). Rich laid out every access-log line as a table: 22 % of the
    interpreter lock's time under 20 HTTP clients, for lines wrapped at 80 columns."""
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)


def _add_obsidian_routes(server: MCPServer[Any], vault: Vault, token: str | None) -> None:
    """The Obsidian plugin's routes (``ui.plugin_api``, the same as ``vaultctx ui`` serves),
    over a ``Vault`` of their own: a plugin's search never waits on an MCP client's tool call."""
    from vaultctx.ui.pages import Pages
    from vaultctx.ui.plugin_api import PluginApi

    pages = Pages(Vault(config=vault.config))
    for path, endpoint in PluginApi(pages, token).endpoints():
        server.custom_route(path, methods=["POST"], include_in_schema=False)(endpoint)


def _auth(token: str | None) -> dict[str, Any]:
    if token is None:
        return {}
    # AuthSettings insists on an issuer URL; without an OAuth provider or resource URL nothing
    # serves or advertises it, the SDK only checks the bearer token on every request.
    return {
        "auth": AuthSettings(issuer_url=AnyHttpUrl("http://localhost"), resource_server_url=None),
        "token_verifier": SharedTokenVerifier(token),
    }


class SharedTokenVerifier:
    """Accepts exactly one bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id=SERVER_NAME, scopes=[])
        return None


OutputT = TypeVar("OutputT", bound=BaseModel)


def _respond(
    service: VaultService,
    run: Callable[[Vault], OutputT],
    render: Callable[[OutputT], str],
    *,
    soon: bool = False,
    while_warming: Callable[[Vault], OutputT] | None = None,
    writes: bool = False,
) -> CallToolResult:
    """Run one tool against the vault and package the result, or the error a model can act on.

    ``soon`` (or a ``while_warming`` variant) answers without waiting for the model warm-up
    (``VaultService.call_soon``): for tools that need no model, or a keyword-only variant.
    A tool that ``writes`` waits for the vault's lock; the others read beside each other.

    An error's ``{error, suggestion}`` travels as JSON text, not as ``structuredContent``: the
    TypeScript SDK behind Claude Code, Cursor and the Inspector validates ``structuredContent``
    against the success schema even when ``isError`` is set (typescript-sdk issue #1943), so an
    error object there would reach the model as a schema violation instead of the advice.
    """
    try:
        if writes:
            output = service.call(run)
        elif soon or while_warming is not None:
            output = service.call_soon(run, while_warming=while_warming)
        else:
            output = service.read(run)
    except VaultctxError as exc:
        failure = error_output(exc)
        text = json.dumps(_scrub_tree(failure.model_dump()), ensure_ascii=False)
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
    structured = _scrub_tree(output.model_dump(mode="json"))
    return CallToolResult(
        content=[TextContent(type="text", text=SCRUBBED.scrubbed(render(output)))],
        structured_content=structured,
    )


def error_output(exc: VaultctxError) -> outputs.ErrorOutput:
    """The message and the next step, as every ``VaultctxError`` carries them."""
    return outputs.ErrorOutput(error=exc.message, suggestion=exc.suggestion)


def _scrub_tree(value: Any) -> Any:
    """Every string in a JSON-like value scrubbed, whatever field it sits in."""
    if isinstance(value, str):
        return SCRUBBED.scrubbed(value)
    if isinstance(value, list):
        return [_scrub_tree(item) for item in value]
    if isinstance(value, dict):
        return {key: _scrub_tree(item) for key, item in value.items()}
    return value


def _add_note_resource(server: MCPServer[Any], service: VaultService) -> None:
    @server.resource(
        "vault://note/{+path}",
        name="note",
        title="Vault note",
        description="A note of the vault by its vault-relative path "
        "(credential-scrubbed, at most 8,000 tokens).",
        mime_type="text/markdown",
    )
    def read_note_resource(path: str) -> str:
        try:
            note = service.call_soon(lambda vault: vault.read_note(path))
        except VaultctxError as exc:
            raise ResourceError(exc.one_line()) from exc
        return SCRUBBED.scrubbed(outputs.note_text(outputs.note_output(note)))


# Each POST's answer as one JSON body rather than a server-sent-event stream holding one event:
# both are MCP's Streamable HTTP, and clients must accept either. The tools send nothing before
# their result (no progress, no logging to the client), so the stream only cost the server:
# ~0.84x its CPU per search without it under 20 clients (docs/benchmarks.md). The GET stream
# for messages the server starts on its own is unchanged.
JSON_RESPONSES = True


def transport_security(host: str, extra_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=policy.allowed_host_headers(host, extra_hosts),
        allowed_origins=policy.allowed_origins(),
    )


def run_stdio(vault: Vault, *, allow_writes: bool = False) -> None:
    """Serve one client over stdin/stdout until it closes them; logs go to stderr."""
    build_server(vault, warm_up="after handshake", allow_writes=allow_writes).run("stdio")


def run_http(
    vault: Vault,
    *,
    host: str = policy.DEFAULT_HTTP_HOST,
    port: int = policy.DEFAULT_HTTP_PORT,
    token: str | None = None,
    extra_hosts: Sequence[str] = (),
    watch: bool = False,
    sockets: list[socket.socket] | None = None,
    allow_writes: bool = False,
    cli: CliRunner | None = None,
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` for several clients.

    uvicorn is started here rather than by the SDK so that its access log goes through the root
    logger (stderr) instead of uvicorn's own stdout handler, as in stdio mode, and so that idle
    and trickling connections are cut (``http_timeouts``). It serves on ``sockets`` when the
    caller has bound them (``listeners.bind_listeners``, which raises ``ListenError`` for a busy
    port), else binds them here. While it runs, a state file beside the index lets hooks find it
    (``loopback.server_link``), unless another server for this index is recorded there already;
    ``watch`` also keeps the index current, with its own ``Vault`` so indexing never waits on the
    tools' lock. ``token`` None serves without authentication: the CLI allows that only on
    loopback and only when asked (``--no-token``).
    """
    from vaultctx.loopback.listeners import bind_listeners

    policy.check_bind(host, token)
    listening = sockets if sockets is not None else bind_listeners(host, port)
    server = build_server(vault, token=token, log_level="INFO", allow_writes=allow_writes, cli=cli)
    app = server.streamable_http_app(
        transport_security=transport_security(host, extra_hosts),
        host=host,
        json_response=JSON_RESPONSES,
    )
    watcher = None
    if watch:
        from vaultctx.mcp.watch_events import after_watch_event

        watcher = Vault(config=vault.config).watcher(on_event=after_watch_event(vault.config))

    def start() -> None:
        if watcher is not None:
            watcher.start_in_background()
        try:
            server_link.write_server_state(local_anchor(vault.db_path), host, port, token)
        except server_link.ServerStateTakenError as exc:
            log.warning("hooks keep asking the server already running for this index: %s", exc)
        except OSError as exc:
            log.warning("hooks will not find this server (cannot write its state file: %s)", exc)

    def stop() -> None:
        server_link.remove_server_state(local_anchor(vault.db_path), host, port)
        if watcher is not None:
            watcher.stop(wait_seconds=10)

    run_while_serving(app, start, stop)
    run_uvicorn(app, host, port, listening)


def run_uvicorn(app: Any, host: str, port: int, listening: list[socket.socket]) -> None:
    """Serve ``app`` on the bound sockets until stopped, its access log through the root logger
    and idle or trickling connections cut (``loopback.http_timeouts``)."""
    import uvicorn

    from vaultctx.loopback.http_timeouts import IDLE_TIMEOUT_SECONDS, TimedH11Protocol

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        log_level="info",
        http=TimedH11Protocol,
        timeout_keep_alive=IDLE_TIMEOUT_SECONDS,
    )
    uvicorn.Server(config).run(sockets=listening)
