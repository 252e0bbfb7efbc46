"""``python -m vaultctx`` runs the CLI."""

from vaultctx.cli.main import run

run()
