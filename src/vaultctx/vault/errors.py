"""Errors raised while reading a vault.

Each message names the file or folder and each suggestion the fix, because these end up in front
of a user in the CLI, the MCP server and the indexer's report.
"""

from __future__ import annotations

from vaultctx.errors import VaultctxError


class VaultError(VaultctxError):
    """Base class, so callers can catch every vault-reading problem in one place."""


class VaultNotFoundError(VaultError):
    """The vault folder is missing or is not a folder: nothing can be indexed."""


class UnreadableFileError(VaultError):
    """One file cannot be turned into text; the indexer reports it and moves on."""

    def __init__(self, path: str, reason: str, fix: str) -> None:
        super().__init__(f"{path}: {reason}", fix)
        self.path = path
        self.reason = reason

    @property
    def problem(self) -> str:
        """The reason and its fix, as the indexer's report shows them next to the file."""
        return f"{self.reason}; {self.suggestion}"
