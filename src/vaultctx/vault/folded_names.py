"""Whether a name is taken in the vault as the user's disk sees it."""

from __future__ import annotations

import os
from pathlib import Path


def exists_folded(root: Path, relative: str) -> bool:
    """Whether ``relative`` exists, names compared case-insensitively within its folder: on a
    case-insensitive disk (macOS, Windows) ``Plan.md`` and ``plan.md`` are one file, and a vault
    synced between machines must not end up with both."""
    parent, _, name = relative.rpartition("/")
    try:
        names = os.listdir(root / parent) if parent else os.listdir(root)
    except OSError:
        return False
    return name.casefold() in {n.casefold() for n in names}


__all__ = ["exists_folded"]
