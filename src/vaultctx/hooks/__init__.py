"""Claude Code hooks (SPEC §9): context injection, test-output compression, installation.

Kept import-free: ``python -m vaultctx.hooks`` runs on every prompt.
"""
