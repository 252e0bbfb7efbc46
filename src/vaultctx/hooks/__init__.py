"""Claude Code hooks (docs/reference.md#integration): context injection, test-output compression,
installation.

Kept import-free: ``python -m vaultctx.hooks`` runs on every prompt.
"""
