"""What every command shares: the --vault/--db options, opening the vault, printing errors.

Every command imports this module, the hot ones too (``search``, ``serve``, ``hook``), so it
imports typer and the standard library only: the rich consoles are created on first use.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, cast

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
        help="Index database file, or a postgresql:// URL (default: $DB_PATH, else per-user "
        "data dir).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Show what would be done; write nothing.")
]

# ``common.stdout`` and ``common.stderr``: rich consoles, made by ``console`` when first used.
_CONSOLE_OPTIONS: dict[str, dict[str, Any]] = {
    "stdout": {},
    "stderr": {"stderr": True, "soft_wrap": True},
}
_consoles: dict[str, Console] = {}
# A command the server runs for a CLI process (``cli.served``) prints to consoles made for that
# process's terminal, and works on the server's open vault; both are set per request.
request_consoles: ContextVar[dict[str, Console] | None] = ContextVar(
    "vaultctx_request_consoles", default=None
)
served_vault: ContextVar[Callable[[str | None, str | None], Vault] | None] = ContextVar(
    "vaultctx_served_vault", default=None
)
# A served hook's event: the caller's stdin, sent with its command line.
served_stdin: ContextVar[str | None] = ContextVar("vaultctx_served_stdin", default=None)


def console_options(name: str) -> dict[str, Any]:
    """How the ``stdout`` or ``stderr`` console is made (the server makes its own per request)."""
    return dict(_CONSOLE_OPTIONS[name])


def console(name: str) -> Console:
    """The rich console for ``stdout`` or ``stderr``; importing rich costs ~50 ms, which
    ``--json`` output and plain error lines never need."""
    made = request_consoles.get()
    if made is not None:
        return made[name]
    if name not in _consoles:
        from rich.console import Console

        _consoles[name] = Console(**_CONSOLE_OPTIONS[name])
    return _consoles[name]


class _ConsoleByName:
    """``common.stdout``: the console ``console(name)`` gives at each use, so a module that
    imported it once prints to the request's console inside the server, and imports rich only
    when it first prints."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(console(self._name), attribute)


def __getattr__(name: str) -> Console:
    if name in _CONSOLE_OPTIONS:
        return cast("Console", _ConsoleByName(name))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def print_plain(text: str, name: str = "stdout") -> None:
    """A line that carries a path or the user's own words: printed as written (``[x]`` is not
    markup) and on one line even when piped, where rich would wrap it at 80 columns, so a script
    reading it gets the path whole."""
    console(name).print(text, markup=False, highlight=False, soft_wrap=True)


def print_error(message: str) -> None:
    """``error: <message>`` on one line; a ``VaultctxError`` gives ``error.one_line()``, the
    problem and its fix together."""
    if sys.stderr.isatty():
        from rich.markup import escape

        console("stderr").print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    else:
        print(f"error: {message}", file=sys.stderr)


def open_vault(vault: str | None, db: str | None) -> Vault:
    serving = served_vault.get()
    if serving is not None:
        return serving(vault, db)
    from vaultctx.api import Vault

    return Vault(vault, db=db)
