"""The ``vaultctx`` console script: the running server's answer when one serves the command,
else the CLI in-process.

Kept apart from ``cli.main`` so that a forwarded command never imports typer (``cli.forward``
imports the standard library only), and apart from ``cli.forward`` so that neither imports the
other's side.
"""

from __future__ import annotations

import sys

from vaultctx.cli.forward import forward


def run() -> None:
    code = forward(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from vaultctx.cli.main import run as run_in_process

    run_in_process(forwarding=False)
