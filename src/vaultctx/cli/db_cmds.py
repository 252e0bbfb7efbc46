"""``vaultctx db``: the PostgreSQL index's connection (docs/postgres.md).

``db_app`` is the group; a family of ``db`` commands adds itself with ``db_app.command`` (or a
``register_db(db_app)`` called from ``main.build_app`` before ``register``). A password is never
an argument: arguments end up in shell history and in every process listing, so ``password set``
prompts without echo, or reads a pipe (``pass show pg | vaultctx db password set URL``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption

db_app = typer.Typer(
    help="The PostgreSQL index: its password, its server, and copying an index there "
    "(docs/postgres.md).",
    no_args_is_help=True,
)
password_app = typer.Typer(
    help="The PostgreSQL password, kept in the OS keyring.", no_args_is_help=True
)
db_app.add_typer(password_app, name="password")

UrlArgument = Annotated[
    str,
    typer.Argument(help="The server, as postgresql://USER@HOST:PORT/DATABASE (no password)."),
]


@password_app.command("set")
def password_set(url: UrlArgument) -> None:
    """Store the password for URL: typed at a hidden prompt, or read from a pipe."""
    from vaultctx.index.postgres.connect import parse_target, store_password

    target = parse_target(url, from_command_line=True)
    if sys.stdin.isatty():
        import getpass

        value = getpass.getpass(f"password for {target.keyring_username()} (not shown): ")
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    stored_in = store_password(target, value)
    print(f"stored the password for {target.keyring_username()} in the keyring ({stored_in})")


@password_app.command("delete")
def password_delete(url: UrlArgument) -> None:
    """Remove the password stored for URL from the keyring."""
    from vaultctx.index.postgres.connect import forget_password, parse_target

    target = parse_target(url, from_command_line=True)
    if forget_password(target):
        print(f"deleted the password for {target.keyring_username()}")
    else:
        print(f"no password for {target.keyring_username()} in the keyring", file=sys.stderr)


@db_app.command("check")
def db_check(url: UrlArgument, as_json: JsonOption = False) -> None:
    """Connect to URL as indexing would, and show the server, pgvector and TLS."""
    from vaultctx.index.postgres.connect import connect, parse_target, server_facts

    target = parse_target(url, from_command_line=True)
    with connect(target) as conn:
        facts = server_facts(conn)
    if as_json:
        print(json.dumps({"target": target.display(), **facts.as_dict()}))
    else:
        print(f"{target.display()}: {facts.summary()}")


@db_app.command("copy")
def db_copy(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Where the copy goes: a postgresql:// URL (no password) or an index file.",
            show_default=False,
        ),
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Copy the vault's index (from --db, or where it is now) to --to, vectors included:
    nothing is embedded again. The target must hold no index of this vault yet."""
    from vaultctx.config import load_config
    from vaultctx.db_location import index_location
    from vaultctx.errors import VaultctxError
    from vaultctx.index.copy import copy_index
    from vaultctx.index.db import open_index

    config = load_config(vault, db)
    target_location = index_location(to, config.vault)
    if target_location == config.db:
        raise VaultctxError(
            f"--to names the index being copied ({config.db})", "give another database or file"
        )
    source = open_index(config.db, readonly=True)
    try:
        target = open_index(target_location)
        try:
            report = copy_index(source, target, _copy_progress(as_json))
        finally:
            target.close()
    finally:
        source.close()
    if as_json:
        print(json.dumps({"from": str(config.db), "to": str(target_location), **vars(report)}))
    else:
        print(
            f"copied {report.rows.get('files', 0)} notes, {report.rows.get('chunks', 0)} chunks "
            f"and {sum(report.vectors.values())} vectors to {target_location}"
        )


def _copy_progress(quiet: bool) -> Callable[[str, int], None]:
    def note(what: str, count: int) -> None:
        if not quiet:
            print(f"  {what}: {count}", file=sys.stderr)

    return note


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
