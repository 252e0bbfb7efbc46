"""The ``vaultctx`` command: a thin shell over ``vaultctx.api``.

Every command family lives in its own module and registers itself on ``app``. Errors the user can
fix are printed as one line naming the problem and the fix, never as a traceback.
"""

from __future__ import annotations

import os
import sys

import typer

from vaultctx.cli import capture_cmds, common, hook_cmds, index_cmds, search_cmds, serve_cmds

app = typer.Typer(
    name="vaultctx",
    help="Local-first AI knowledge base over a folder of markdown notes.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
index_cmds.register(app)
search_cmds.register(app)
serve_cmds.register(app)
capture_cmds.register(app)
hook_cmds.register(app)


def run() -> None:
    """Console-script entry point."""
    try:
        app()
    except common.UserFacingError as exc:
        common.print_error(str(exc))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        common.print_error("interrupted")
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("VAULTCTX_DEBUG"):
            raise
        common.print_error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(set VAULTCTX_DEBUG=1 to see the traceback and please report it)"
        )
        sys.exit(1)


if __name__ == "__main__":
    run()
