"""vaultctx: a local-first knowledge base over a folder of markdown notes.

``from vaultctx import Vault`` is the public API (see ``vaultctx.api``), with the values it takes
and the one error it raises: ``SearchRequest``, ``Filters``, ``Weights`` and ``VaultctxError``.
The imports are lazy so that ``import vaultctx`` stays cheap for hooks that run on every prompt.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = [
    "Change",
    "ChangeContext",
    "Filters",
    "NoteChangeError",
    "SearchRequest",
    "Vault",
    "VaultctxError",
    "Weights",
    "__version__",
]

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.errors import VaultctxError
    from vaultctx.ledger.context import Change, ChangeContext
    from vaultctx.search.filters import Filters
    from vaultctx.search.request import SearchRequest, Weights
    from vaultctx.vault.writes import NoteChangeError

_HOMES = {
    "Vault": "vaultctx.api",
    "VaultctxError": "vaultctx.errors",
    "Change": "vaultctx.ledger.context",
    "ChangeContext": "vaultctx.ledger.context",
    "NoteChangeError": "vaultctx.vault.writes",
    "Filters": "vaultctx.search.filters",
    "SearchRequest": "vaultctx.search.request",
    "Weights": "vaultctx.search.request",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'vaultctx' has no attribute {name!r}")
