"""``python -m vaultctx`` runs the CLI (through a running server when one serves the command)."""

from vaultctx.cli.entry import run

run()
