"""The user's engine: one long-lived process that keeps each vault it is asked about warm and
runs the CLI's commands for thin clients (``vaultctx.engine_link`` is their side)."""
