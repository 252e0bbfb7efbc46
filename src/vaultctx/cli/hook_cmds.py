"""``vaultctx hook context|compress`` (what Claude Code runs) and ``vaultctx hooks install`` /
``uninstall``."""

from __future__ import annotations

import io
import sys
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from vaultctx.cli.common import (
    DbOption,
    VaultOption,
    open_vault,
    print_plain,
    served_stdin,
    served_vault,
)
from vaultctx.config import default_db_path
from vaultctx.db_location import IndexLocation, PostgresLocation
from vaultctx.errors import VaultctxError
from vaultctx.hooks.claude import HookKind, HookOptions, enter_hook_process, run_hook
from vaultctx.hooks.context import hook_excerpts
from vaultctx.hooks.install import (
    HOOK_KINDS,
    hook_command,
    install_hooks,
    settings_path,
    uninstall_hooks,
)

hook_app = typer.Typer(
    name="hook",
    help="Claude Code hooks: read the hook event JSON on stdin, answer on stdout.",
    no_args_is_help=True,
)
hooks_app = typer.Typer(
    name="hooks",
    help="Install (or uninstall) vaultctx's hooks in Claude Code's settings.",
    no_args_is_help=True,
)
ProjectOption = Annotated[
    Path | None,
    typer.Option(help="Project folder whose .claude/settings.json to update (default: here)."),
]
UserOption = Annotated[
    bool, typer.Option("--user", help="Update ~/.claude/settings.json (every project).")
]


def _run(kind: HookKind, vault: str | None, db: str | None) -> None:
    if served_vault.get() is None:
        if not enter_hook_process():
            return
        raise typer.Exit(run_hook(kind, HookOptions(vault, db), sys.stdin, sys.stdout, sys.stderr))
    # Run by the engine for a hook process (``cli.forward``), which checked the re-entry guard
    # and sent its stdin: the engine's warm vault answers, with its hybrid search.
    handle = open_vault(vault, db)
    options = HookOptions(str(handle.path), str(handle.db_path), partial(hook_excerpts, handle))
    event = io.StringIO(served_stdin.get() or "")
    raise typer.Exit(run_hook(kind, options, event, sys.stdout, sys.stderr))


@hook_app.command("context")
def context(vault: VaultOption = None, db: DbOption = None) -> None:
    """UserPromptSubmit / PreToolUse (Edit, Write, Bash): add relevant notes as context."""
    _run("context", vault, db)


@hook_app.command("compress")
def compress(vault: VaultOption = None, db: DbOption = None) -> None:
    """PostToolUse (Bash): replace long test output with counts and failures."""
    _run("compress", vault, db)


@hook_app.command("capture")
def capture(vault: VaultOption = None, db: DbOption = None) -> None:
    """PostToolUse (any tool): save an output over 500 characters into the inbox, in the
    projects where `vaultctx hooks capture on` was run."""
    _run("capture", vault, db)


@hooks_app.command("capture")
def capture_switch(
    state: Annotated[str, typer.Argument(help="on, off, or status.")] = "status",
    project: ProjectOption = None,
) -> None:
    """Turn the capture hook on or off for a project (default: here); kept in your own state
    folder, never in the project."""
    from vaultctx.hooks.capture_hook import capture_is_on, set_capture

    if state not in ("on", "off", "status"):
        raise VaultctxError(f"unknown state {state!r}", "give on, off or status")
    _check_where(project, False)
    folder = (project or Path.cwd()).resolve()
    if state != "status":
        set_capture(folder, state == "on")
    now = "on" if capture_is_on(str(folder)) else "off"
    print_plain(f"capture of tool output in {folder}: {now}")


@hooks_app.command("install")
def install(
    vault: VaultOption = None,
    db: DbOption = None,
    project: ProjectOption = None,
    user: UserOption = False,
) -> None:
    """Add the context, compression and capture hooks to Claude Code (merged; a .bak copy is
    kept). Capture stays off until `vaultctx hooks capture on` in a project."""
    _check_where(project, user)
    handle = open_vault(vault, db)
    custom_db = _hook_db(handle.db_path, handle.path)
    commands = {kind: hook_command(kind, handle.path, custom_db) for kind in HOOK_KINDS}
    path = settings_path(project, user)
    report = install_hooks(path, commands)
    events = ", ".join(report.events)
    if not report.changed:
        print_plain(f"{path} already has the vaultctx hooks ({events})")
        return
    backup = f" (previous version: {report.backup})" if report.backup else ""
    print_plain(f"installed the vaultctx hooks ({events}) in {path}{backup}")


def _hook_db(location: IndexLocation, vault: Path) -> str | None:
    """The ``--db`` the hooks must carry to search this same index, or None when the hook
    process finds it alone: the vault's default file, or a PostgreSQL URL from the user's own
    settings file (read again by every hook; a password there must not be copied out of that
    private file into Claude Code's settings). A URL given with ``--db`` or ``DB_URL`` is
    recorded as libpq reads it, refused if it holds a password; the hook gets it
    from the keyring or ``~/.pgpass`` as every other command does."""
    if isinstance(location, PostgresLocation):
        if location.config_file is not None:
            return None
        from vaultctx.index.postgres.connect import command_line_url

        return command_line_url(location.url)
    return None if location == default_db_path(vault) else str(location)


@hooks_app.command("uninstall")
def uninstall(project: ProjectOption = None, user: UserOption = False) -> None:
    """Remove vaultctx's hooks from Claude Code's settings; nothing else (a .bak copy is kept)."""
    _check_where(project, user)
    path = settings_path(project, user)
    report = uninstall_hooks(path)
    if not report.changed:
        print_plain(f"{path} has no vaultctx hooks; nothing changed")
        return
    backup = f" (previous version: {report.backup})" if report.backup else ""
    events = ", ".join(report.events)
    print_plain(f"removed the vaultctx hooks ({events}) from {path}{backup}")


def _check_where(project: Path | None, user: bool) -> None:
    if project is not None and user:
        raise VaultctxError("--project and --user both given", "give one of them")
    if project is not None and not project.is_dir():
        raise VaultctxError(
            f"project folder not found: {project}", "give the folder that holds .claude/"
        )


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app)
    app.add_typer(hooks_app)
