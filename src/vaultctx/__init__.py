"""vaultctx: a local-first knowledge base over a folder of markdown notes.

``from vaultctx import Vault`` is the public API (see ``vaultctx.api``). The import is lazy so that
``import vaultctx`` stays cheap for hooks that run on every prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Vault", "__version__"]

if TYPE_CHECKING:
    from vaultctx.api import Vault


def __getattr__(name: str) -> Any:
    if name == "Vault":
        from vaultctx.api import Vault

        return Vault
    raise AttributeError(f"module 'vaultctx' has no attribute {name!r}")
