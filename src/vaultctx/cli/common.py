"""What every command shares: the --vault/--db options, opening the vault, printing errors.

Every command imports this module, the hot ones too (``search``, ``serve``, ``hook``), so it
imports typer and the standard library only: the rich consoles are created on first use and the
library's error classes are looked up only when an error happens.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from vaultctx.api import Vault

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

# ``common.stdout`` and ``common.stderr``: rich consoles, made by ``console`` when first used.
_CONSOLE_OPTIONS: dict[str, dict[str, Any]] = {
    "stdout": {},
    "stderr": {"stderr": True, "soft_wrap": True},
}
_consoles: dict[str, Console] = {}


def console(name: str) -> Console:
    """The rich console for ``stdout`` or ``stderr``; importing rich costs ~50 ms, which
    ``--json`` output and plain error lines never need."""
    if name not in _consoles:
        from rich.console import Console

        _consoles[name] = Console(**_CONSOLE_OPTIONS[name])
    return _consoles[name]


def __getattr__(name: str) -> Console:
    if name in _CONSOLE_OPTIONS:
        return console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UserFacingError(Exception):
    """An error with a message that already tells the user what to do."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def print_error(message: str) -> None:
    if sys.stderr.isatty():
        console("stderr").print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    else:
        print(f"error: {message}", file=sys.stderr)


def _errors_with_advice() -> tuple[type[Exception], ...]:
    """The library's errors whose message already names the fix. Imported on the error path
    only: the indexer's module alone costs a search ~70 ms of start-up."""
    from vaultctx.config import ConfigError
    from vaultctx.index.db import IndexDatabaseError
    from vaultctx.index.indexer import IndexerBusyError
    from vaultctx.vault.errors import VaultError

    return (ConfigError, IndexDatabaseError, IndexerBusyError, VaultError)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn the library's own errors (each with a fix in its message) into one-line CLI errors."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, _errors_with_advice()):
            raise UserFacingError(str(exc)) from exc
        raise


def open_vault(vault: str | None, db: str | None) -> Vault:
    from vaultctx.api import Vault

    with user_errors():
        return Vault(vault, db=db)
