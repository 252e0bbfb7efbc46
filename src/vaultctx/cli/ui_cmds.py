"""``vaultctx ui``: the web UI on this machine, opened with a per-run token.

Starlette, uvicorn and the templates are imported only when the command runs.
"""

from __future__ import annotations

import secrets
import sys
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, VaultOption, open_vault
from vaultctx.loopback import policy
from vaultctx.loopback.listeners import bind_listeners
from vaultctx.loopback.token import TOKEN_BYTES

DEFAULT_UI_PORT = 8767


def ui(
    vault: VaultOption = None,
    db: DbOption = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port to listen on.")] = (
        DEFAULT_UI_PORT
    ),
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on. Anything but loopback lets other machines reach the UI "
            "(the token is still required); give it only if you mean that.",
        ),
    ] = policy.DEFAULT_HTTP_HOST,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the UI in the default browser.")
    ] = False,
) -> None:
    """Search, read notes, see and undo changes, and re-index, in your browser."""
    handle = open_vault(vault, db)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    policy.check_bind(host, token)
    if not policy.is_loopback(host):
        print(
            f"warning: --host {host}: other machines can reach this UI; anyone who sees its "
            "address (with the token) can read and change your notes",
            file=sys.stderr,
        )
    sockets = bind_listeners(host, port)  # a busy port is one line of advice, before start-up
    from vaultctx.cli.served import run_request
    from vaultctx.ui.app import create_app, run_ui

    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{port}/?token={token}"
    app = create_app(handle, token=token, host=host, port=port, cli=run_request)
    print(f"vaultctx UI for {handle.path} at {url}", flush=True)
    print("keep this address private: it carries this run's token; Ctrl-C stops", file=sys.stderr)

    def open_url() -> None:
        import webbrowser

        webbrowser.open(url)

    run_ui(app, sockets, on_started=open_url if open_browser else None)


def register(app: typer.Typer) -> None:
    app.command()(ui)
