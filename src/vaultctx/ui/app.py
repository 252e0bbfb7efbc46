"""The web UI's Starlette app and the server that runs it.

``create_app`` wires the routes to ``Pages`` behind ``UiGuard``; ``run_ui`` serves it with
uvicorn on sockets the CLI has already bound (a busy port is one line of advice before anything
starts). The access log is off: the first request's address carries the token.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from vaultctx.api import Vault
from vaultctx.db_location import local_anchor
from vaultctx.errors import VaultctxError
from vaultctx.hooks.context import hook_excerpts
from vaultctx.loopback import server_link
from vaultctx.loopback.cli_endpoint import CliRunner, cli_endpoint
from vaultctx.loopback.hook_endpoint import hook_endpoint
from vaultctx.loopback.serving import run_while_serving
from vaultctx.ui import conversation_pages, review_page
from vaultctx.ui.guard import UiGuard
from vaultctx.ui.pages import Pages
from vaultctx.ui.plugin_api import PluginApi

STATIC = Path(__file__).parent / "static"


def create_app(
    vault: Vault,
    *,
    token: str,
    host: str,
    port: int,
    extra_hosts: Sequence[str] = (),
    warm_up: bool = True,
    cli: CliRunner | None = None,
) -> Starlette:
    """``cli`` also serves CLI processes' commands (``loopback.cli_endpoint``, bearer token, not
    the cookie), and records this server beside the index while it runs, unless another server
    is recorded there."""
    pages = Pages(vault)

    def home(request: Request) -> Response:
        return RedirectResponse("/search", status_code=303)

    def not_found(request: Request, exc: Exception) -> Response:
        problem = VaultctxError(f"no page at {request.url.path}", "use the links at the top")
        return pages.error(request, problem, 404)

    routes = [
        Route("/", home),
        Route("/search", pages.search),
        Route("/search/results", pages.search_results),
        Route("/note", pages.note),
        Route("/chat", pages.chat),
        Route("/chat/ask", pages.chat_ask, methods=["POST"]),
        Route("/chat/confirm", pages.chat_confirm, methods=["POST"]),
        Route("/conversations", lambda r: conversation_pages.conversations(pages, r)),
        Route("/conversations/view", lambda r: conversation_pages.conversation(pages, r)),
        Route("/conversations/export", lambda r: conversation_pages.export(pages, r)),
        Route(
            "/conversations/harvest", partial(conversation_pages.harvest, pages), methods=["POST"]
        ),
        Route("/changes", pages.changes),
        Route("/changes/undo", pages.undo, methods=["POST"]),
        Route("/review", partial(review_page.review, pages)),
        Route("/review/propose", partial(review_page.propose, pages), methods=["POST"]),
        Route("/review/apply", partial(review_page.apply, pages), methods=["POST"]),
        Route("/status", pages.status),
        Route("/status/progress", pages.progress),
        Route("/status/reindex", pages.reindex, methods=["POST"]),
        Route("/lang", pages.language, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(UiGuard, token=token, host=host, port=port, extra_hosts=extra_hosts)
        ],
        exception_handlers={404: not_found},
    )
    app.state.pages = pages
    # The Obsidian plugin: bearer token like the CLI's endpoint, never the cookie.
    app.router.routes[:0] = PluginApi(pages, token).routes()
    if cli is not None:
        # The hook finds this server through the same record: it gets its endpoint too.
        app.router.routes[:0] = [
            Route(server_link.CLI_PATH, cli_endpoint(pages.call, token, cli), methods=["POST"]),
            Route(
                server_link.HOOK_CONTEXT_PATH,
                hook_endpoint(pages.call, token, hook_excerpts),
                methods=["POST"],
            ),
        ]
        _record_while_serving(app, vault, host, port, token)
    if warm_up:
        threading.Thread(target=pages.warm_up, name="vaultctx-ui-warmup", daemon=True).start()
    return app


def _record_while_serving(app: Starlette, vault: Vault, host: str, port: int, token: str) -> None:
    def start() -> None:
        # Else the CLI and hooks keep using the server recorded first, or run in-process.
        with contextlib.suppress(server_link.ServerStateTakenError, OSError):
            server_link.write_server_state(local_anchor(vault.db_path), host, port, token)

    run_while_serving(
        app, start, lambda: server_link.remove_server_state(local_anchor(vault.db_path), host, port)
    )


def run_ui(
    app: Starlette,
    sockets: list[socket.socket],
    *,
    on_started: Callable[[], None] | None = None,
) -> None:
    """Serve until interrupted; ``on_started`` runs once the server accepts connections."""
    import uvicorn

    from vaultctx.loopback.http_timeouts import IDLE_TIMEOUT_SECONDS, TimedH11Protocol

    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        http=TimedH11Protocol,
        timeout_keep_alive=IDLE_TIMEOUT_SECONDS,
    )
    server = uvicorn.Server(config)
    if on_started is not None:
        threading.Thread(
            target=_when_started, args=(server, on_started), name="vaultctx-ui-open", daemon=True
        ).start()
    server.run(sockets=sockets)


def _when_started(server: object, action: Callable[[], None]) -> None:
    import time

    deadline = time.monotonic() + 60
    while not getattr(server, "started", False) and time.monotonic() < deadline:
        time.sleep(0.05)
    action()
