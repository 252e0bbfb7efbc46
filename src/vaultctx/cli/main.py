"""The ``vaultctx`` command: a thin shell over ``vaultctx.api``.

Every command family lives in its own module and registers itself on the app in ``build_app``.
Errors the user can fix (every ``VaultctxError``, whichever layer raised it) are printed as one
line naming the problem and the fix, and exit 2; never as a traceback.

Start-up is part of the interface: AI tools spawn ``vaultctx serve`` and wait for it, scripts run
``vaultctx search`` in loops. So this module imports only typer, and a command listed in
``HOT_COMMANDS`` gets an app holding just its own family: it never pays for the imports of the
others (rich progress bars, YAML, the indexer, the link graph, ...).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Annotated, Any

import typer

from vaultctx.cli import common
from vaultctx.errors import VaultctxError

# Commands spawned over and over, and the module whose ``register`` defines each of them.
HOT_COMMANDS = {
    "search": "vaultctx.cli.search_cmds",
    "context": "vaultctx.cli.search_cmds",
    "serve": "vaultctx.cli.serve_cmds",
    "hook": "vaultctx.cli.hook_cmds",
    # Editor plug-ins, git hooks and file watchers run ``index`` after every save; a no-op run
    # must answer in a fraction of a second, so it must not import every other family.
    "index": "vaultctx.cli.index_cmds",
    "status": "vaultctx.cli.index_cmds",
    "doctor": "vaultctx.cli.index_cmds",
    # The agent's commands: a question waits on them before anything is sent to the model.
    "ask": "vaultctx.cli.agent_cmds",
    "chat": "vaultctx.cli.agent_cmds",
}


def package_version() -> str:
    """The installed package's version (the source tree's when it runs without being installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vaultctx")
    except PackageNotFoundError:
        from vaultctx import __version__

        return __version__


def _print_version(wanted: bool) -> None:
    if wanted:
        print(f"vaultctx {package_version()}")
        raise typer.Exit()


VersionOption = Annotated[
    bool,
    typer.Option(
        "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
    ),
]


def _show_switches_as_switches() -> None:
    """Help shows ``--fast``, not ``--fast <bool>``.

    typer's rich help (0.29) prints a type after every option, switches included, which reads as
    if ``--fast true`` were the way to use them (it is an error). Switches (``is_flag``) lose the
    type here; every other option keeps its own.
    """
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or shown.__name__ == "type_unless_switch":  # older typer, or done already
        return

    def type_unless_switch(option: TyperOption, ctx: Any) -> str | None:
        return None if option.is_flag else shown(option, ctx)

    TyperOption.display_type_rich = type_unless_switch  # type: ignore[method-assign,assignment]


def _new_app() -> typer.Typer:
    from vaultctx.cli import fast_params

    _show_switches_as_switches()
    fast_params.install()
    app = typer.Typer(
        name="vaultctx",
        help="Local-first AI knowledge base over a folder of markdown notes.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def main(version: VersionOption = False) -> None:
        # A callback keeps the app a command group even when it holds a single command, so a
        # hot command's app parses ``vaultctx search ...`` exactly as the full app does.
        pass

    return app


def build_app() -> typer.Typer:
    """The whole CLI, every command family registered."""
    from vaultctx.cli import (
        agent_cmds,
        brain_app,
        brain_report_cmds,
        brain_review_cmds,
        brain_run_cmds,
        brain_think_cmds,
        brain_wiki_cmds,
        capture_cmds,
        clip_cmds,
        conversation_cmds,
        db_cmds,
        engine_cmds,
        hook_cmds,
        index_cmds,
        ledger_cmds,
        links_cmds,
        mcp_cmds,
        obsidian_cmds,
        para_cmds,
        review_cmds,
        review_contradictions_cmds,
        review_flow_cmds,
        search_cmds,
        secret_cmds,
        serve_cmds,
        signal_cmds,
        skills_cmds,
        tags_cmds,
        template_cmds,
        todo_cmds,
        ui_cmds,
        verify_cmds,
    )

    app = _new_app()
    index_cmds.register(app)
    search_cmds.register(app)
    serve_cmds.register(app)
    capture_cmds.register(app)
    hook_cmds.register(app)
    links_cmds.register(app)
    verify_cmds.register(app)
    agent_cmds.register(app)
    secret_cmds.register(app)
    conversation_cmds.register(app)
    mcp_cmds.register(app)
    ledger_cmds.register(app)
    todo_cmds.register(app)
    template_cmds.register(app)
    signal_cmds.register(app)
    clip_cmds.register(app)
    tags_cmds.register(app)
    para_cmds.register(app)
    skills_cmds.register(app)
    # Command groups: each family adds its commands to the group, then the group joins the app
    # (from here: a flow module imports review_cmds, so review_cmds importing it back would be
    # an import cycle).
    brain_wiki_cmds.register_brain(brain_app.brain_app)
    brain_think_cmds.register_brain(brain_app.brain_app)
    brain_report_cmds.register_brain(brain_app.brain_app)
    brain_run_cmds.register_brain(brain_app.brain_app)
    brain_app.register(app)
    brain_review_cmds.register_review(review_cmds.review_app)
    review_contradictions_cmds.register_review(review_cmds.review_app)
    review_flow_cmds.register_review(review_cmds.review_app)
    review_cmds.register(app)
    ui_cmds.register(app)
    engine_cmds.register(app)
    obsidian_cmds.register(app)
    db_cmds.register(app)
    return app


def app_for(argv: list[str]) -> typer.Typer:
    """The app for this command line: a hot command's family alone, else the whole CLI."""
    command = argv[1] if len(argv) > 1 else ""
    if command not in HOT_COMMANDS:
        return build_app()
    app = _new_app()
    importlib.import_module(HOT_COMMANDS[command]).register(app)
    return app


def __getattr__(name: str) -> Any:
    """``main.app``, the whole CLI (tests drive it), is built when first asked for."""
    if name == "app":
        app = globals()["app"] = build_app()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(forwarding: bool = True) -> None:
    """Console-script entry point (``cli.entry.run`` is the faster one: it asks a running
    server before importing typer; this one asks it after, so either entry uses the server)."""
    if forwarding:
        from vaultctx.cli.forward import forward

        code = forward(sys.argv[1:])
        if code is not None:
            sys.exit(code)
    try:
        app_for(sys.argv)()
    except VaultctxError as exc:
        common.print_error(exc.one_line())
        sys.exit(2)
    except KeyboardInterrupt:
        common.print_error("interrupted")
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("VAULTCTX_DEBUG"):
            raise
        damaged = _damaged_index(exc)
        if damaged is not None:
            common.print_error(damaged.one_line())
            sys.exit(2)
        common.print_error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(set VAULTCTX_DEBUG=1 to see the traceback and please report it)"
        )
        sys.exit(1)


def _damaged_index(exc: Exception) -> VaultctxError | None:
    """SQLite's corruption errors from a command that read the index without going through
    ``Vault``'s own reporting: a damaged index is the user's to rebuild, not a bug to report."""
    if type(exc).__module__ != "apsw":  # no import: apsw is loaded if it raised
        return None
    from vaultctx.index.db import DAMAGE_ERRORS, REBUILD_ADVICE

    if not isinstance(exc, DAMAGE_ERRORS):
        return None
    return VaultctxError(f"the index is damaged ({exc})", REBUILD_ADVICE)


if __name__ == "__main__":
    run()
