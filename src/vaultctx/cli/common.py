"""What every command shares: the --vault/--db options, opening the vault, printing errors."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Annotated

import typer
from rich.console import Console

from vaultctx.api import Vault
from vaultctx.config import ConfigError

VaultOption = Annotated[
    str | None,
    typer.Option(
        "--vault", "-v", help="Folder of notes (default: $VAULT_PATH).", show_default=False
    ),
]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Index database file (default: $DB_PATH, else per-user data dir).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]

stdout = Console()
stderr = Console(stderr=True, soft_wrap=True)


class UserFacingError(Exception):
    """An error with a message that already tells the user what to do."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def print_error(message: str) -> None:
    if sys.stderr.isatty():
        stderr.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    else:
        print(f"error: {message}", file=sys.stderr)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's own errors (each with a fix in its message) into one-line CLI errors."""
    from vaultctx.index.db import IndexDatabaseError
    from vaultctx.index.indexer import IndexerBusyError
    from vaultctx.vault.errors import VaultError

    try:
        yield
    except (ConfigError, IndexDatabaseError, IndexerBusyError, VaultError) as exc:
        raise UserFacingError(str(exc)) from exc


def open_vault(vault: str | None, db: str | None) -> Vault:
    with user_errors():
        return Vault(vault, db=db)
