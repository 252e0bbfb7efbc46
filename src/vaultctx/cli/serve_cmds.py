"""``vaultctx serve`` (the MCP server) and ``vaultctx config claude|codex|cursor``.

The MCP SDK is imported only when ``serve`` runs: it takes a second or more, which every other
command would otherwise pay.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, VaultOption, open_vault, print_plain
from vaultctx.cli.serve_vaults import serve_vaults
from vaultctx.errors import VaultctxError
from vaultctx.loopback import policy
from vaultctx.loopback.listeners import bind_listeners
from vaultctx.loopback.server_link import TOKEN_ENV
from vaultctx.loopback.token import load_or_create_token, token_problem
from vaultctx.mcp import client_config

VaultsOption = Annotated[
    Path | None,
    typer.Option(
        "--vaults",
        help="With --http: serve every vault of this TOML file, each at /mcp/<name> with its "
        "own token and scope (docs/cli-server.md).",
        show_default=False,
    ),
]
CheckOption = Annotated[
    bool, typer.Option("--check", help="With --vaults: check the file, list its vaults and exit.")
]


def serve(
    vault: VaultOption = None,
    db: DbOption = None,
    http: Annotated[
        bool, typer.Option("--http", help="Streamable HTTP for several clients (default: stdio).")
    ] = False,
    host: Annotated[
        str,
        typer.Option(help="Address to listen on; beyond loopback the token must be 32+ bytes."),
    ] = policy.DEFAULT_HTTP_HOST,
    port: Annotated[
        int, typer.Option(min=1, max=65535, help="TCP port for --http.")
    ] = policy.DEFAULT_HTTP_PORT,
    token: Annotated[
        str | None,
        typer.Option(
            envvar=TOKEN_ENV,
            help="Bearer token every HTTP request must carry (prefer the environment variable); "
            "default: the one generated in your config folder.",
            show_default=False,
        ),
    ] = None,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="With --http on loopback: accept requests without a token (any local process "
            "may then read your notes).",
        ),
    ] = False,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="Extra Host header name clients use (repeatable), e.g. my-desktop."),
    ] = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="With --http: re-index notes as they change.")
    ] = False,
    allow_writes: Annotated[
        bool,
        typer.Option(
            "--allow-writes",
            help="Also offer tools that create, edit, move and delete (to .trash/) notes; every "
            "change is recorded and `vaultctx undo` reverts the newest.",
        ),
    ] = False,
    vaults: VaultsOption = None,
    check: CheckOption = False,
) -> None:
    """Run the MCP server over stdio (one client) or Streamable HTTP at /mcp (--http)."""
    if vaults is not None or check:
        given = (vault, db, token, no_token, watch, allow_writes)  # SINGLE_VAULT_OPTIONS' order
        return serve_vaults(vaults, http, check, given, host, port, allow_host or ())
    if watch and not http:
        raise VaultctxError(
            "--watch needs --http", "add --http, or beside a stdio server run `vaultctx watch`"
        )
    handle = open_vault(vault, db)
    if not http:
        from vaultctx.mcp.server import run_stdio

        run_stdio(handle, allow_writes=allow_writes)
        return
    required, where = _http_token(host, token or None, no_token)
    sockets = bind_listeners(host, port)  # a busy port is refused before anything starts
    from vaultctx.cli.served import run_request
    from vaultctx.mcp.server import run_http

    shown_host = f"[{host}]" if ":" in host else host
    print(f"vaultctx MCP server at http://{shown_host}:{port}/mcp{where}", file=sys.stderr)
    run_http(
        handle,
        host=host,
        port=port,
        token=required,
        extra_hosts=allow_host or (),
        watch=watch,
        sockets=sockets,
        allow_writes=allow_writes,
        cli=run_request,
    )


def _http_token(host: str, given: str | None, no_token: bool) -> tuple[str | None, str]:
    """The token every request must carry (None only with ``--no-token`` on loopback), and how
    the start-up line describes it. The token itself is never printed: stderr ends up in logs."""
    if no_token:
        if given:
            raise VaultctxError(
                f"--no-token contradicts the token given with --token or {TOKEN_ENV}",
                "drop one of them",
            )
        policy.check_bind(host, None)
        print(
            "warning: --no-token: requests need no bearer token, so every process on this "
            "machine, whichever user runs it, can read your notes through this server",
            file=sys.stderr,
        )
        return None, " (no bearer token)"
    if given:
        problem = token_problem(given)
        if problem:
            raise VaultctxError(
                f"the bearer token cannot be sent in a header: {problem}",
                "choose printable ASCII without spaces, e.g. from `openssl rand -hex 32`",
            )
        policy.check_bind(host, given)
        return given, " (bearer token required)"
    stored = load_or_create_token()
    policy.check_bind(host, stored.token)
    made = "generated and saved in" if stored.created else "from"
    return stored.token, f" (bearer token required, {made} {stored.path})"


WriteOption = Annotated[
    bool, typer.Option("--write", help="Merge into the client's file (a .bak copy is kept).")
]
RemoveOption = Annotated[
    bool,
    typer.Option("--remove", help="Take this vault's entry out of the client's file instead."),
]


def _configure(
    client: client_config.ClientName, vault: str | None, db: str | None, write: bool, remove: bool
) -> None:
    if write and remove:
        raise VaultctxError(
            "--write adds this vault's entry and --remove takes it out", "give one of them"
        )
    handle = open_vault(vault, db)
    path = client_config.config_path(client)
    if remove:
        _remove(client, path, handle.path)
        return
    command = client_config.launch_command(handle)
    if not write:
        print(client_config.snippet(client, command), end="")
        print(f"add this to {path}, or run again with --write", file=sys.stderr)
        return
    report = client_config.write_client_config(client, path, command)
    if not report.changed:
        print_plain(f"{path} already has the {report.name} entry; nothing changed")
        return
    backup = f" (previous version: {report.backup})" if report.backup else ""
    replaced = f", replacing {', '.join(report.removed)}" if report.removed else ""
    print_plain(f"wrote the {report.name} server to {path}{replaced}{backup}")


def _remove(client: client_config.ClientName, path: Path, vault: Path) -> None:
    report = client_config.remove_client_config(client, path, vault)
    if not report.changed:
        print_plain(f"{path} has no vaultctx entry for {vault}; nothing changed")
        return
    backup = f" (previous version: {report.backup})" if report.backup else ""
    print_plain(f"removed {', '.join(report.removed)} from {path}{backup}")


def claude(
    vault: VaultOption = None,
    db: DbOption = None,
    write: WriteOption = False,
    remove: RemoveOption = False,
) -> None:
    """Claude Code: a vaultctx-<vault folder> entry in .mcp.json here (project scope)."""
    _configure("claude", vault, db, write, remove)


def codex(
    vault: VaultOption = None,
    db: DbOption = None,
    write: WriteOption = False,
    remove: RemoveOption = False,
) -> None:
    """Codex CLI: a vaultctx-<vault folder> table in ~/.codex/config.toml (or $CODEX_HOME)."""
    _configure("codex", vault, db, write, remove)


def cursor(
    vault: VaultOption = None,
    db: DbOption = None,
    write: WriteOption = False,
    remove: RemoveOption = False,
) -> None:
    """Cursor: a vaultctx-<vault folder> entry in .cursor/mcp.json here."""
    _configure("cursor", vault, db, write, remove)


def register(app: typer.Typer) -> None:
    app.command()(serve)
    config_app = typer.Typer(
        name="config",
        help="Print, --write or --remove this vault's MCP entry for Claude Code, Codex CLI or "
        "Cursor.",
        no_args_is_help=True,
    )
    for command in (claude, codex, cursor):
        config_app.command()(command)
    app.add_typer(config_app)
