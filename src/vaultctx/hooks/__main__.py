"""``python -m vaultctx.hooks context|compress|capture [--vault PATH] [--db PATH]``.

The command ``vaultctx hooks install`` writes into Claude Code's settings. It is the same hook as
``vaultctx hook context|compress`` without the CLI's start-up cost (typer, rich and the search
stack's numpy are never imported), which matters for a command that runs on every prompt.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys

from vaultctx.hooks.claude import HookOptions, enter_hook_process, run_hook


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vaultctx.hooks", add_help=False)
    parser.add_argument("kind", choices=("context", "compress", "capture"))
    parser.add_argument("--vault")
    parser.add_argument("--db")
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            args = parser.parse_args(argv)
    except SystemExit:
        # Exit code 2 would block the user's prompt or tool call; a bad command line must not.
        print(
            "vaultctx hook: usage: python -m vaultctx.hooks context|compress|capture",
            file=sys.stderr,
        )
        return 0
    if not enter_hook_process():
        return 0
    return run_hook(args.kind, HookOptions(args.vault, args.db), sys.stdin, sys.stdout, sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
