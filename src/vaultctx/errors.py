"""The one error type vaultctx reports: what went wrong, and what to do about it.

Every error a person or a model can act on derives from ``VaultctxError``, so each integration
catches this one type: the CLI prints ``error: <message>; <suggestion>`` and exits 2, the MCP server
returns ``{error, suggestion}`` as the tool result, the hooks log the same line and carry on. Any
other exception is a bug and is reported as one.

This module imports nothing: every layer, from ``vault/`` up, may raise these errors.
"""

from __future__ import annotations


class VaultctxError(Exception):
    """``message`` names the problem (and the file, setting or input at fault); ``suggestion`` is
    the fix, written so that it can be followed as it stands."""

    def __init__(self, message: str, suggestion: str) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion

    def one_line(self) -> str:
        """The problem and its fix as one line, as the CLI and the hooks print them."""
        return f"{self.message}; {self.suggestion}" if self.suggestion else self.message
