"""What one folder of the vault holds, as a person browsing the vault would see it.

Only the folder's own children (no recursion), and only those vaultctx would serve: hidden
entries (a leading dot, as Obsidian hides them: ``.git``, ``.indexignore``), folders and files
the ignore rules exclude (``.indexignore``, ``ignore`` in vaultctx.toml, or a default such as
``.obsidian/``) and links that lead outside the vault are left out. The folder is confined like
any other path a model gives (``vault.paths``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vaultctx.vault.paths import UnsafePathError, is_vault_folder, normalize_vault_path
from vaultctx.vault.scanner import IgnoreRules, is_excluded, is_own_path, withheld_reason


@dataclass(frozen=True)
class FolderEntry:
    name: str
    is_folder: bool


def list_vault_folder(vault: Path, folder: str, rules: IgnoreRules) -> list[FolderEntry] | None:
    """The served entries directly in ``folder`` (vault-relative; "" is the vault itself),
    folders first, each group by name; None when there is no such folder."""
    root = Path(os.path.realpath(vault))
    relative = "" if folder.strip() in ("", ".", "/", "\\") else normalize_vault_path(folder)
    if relative:
        if not is_vault_folder(vault, relative):
            return None
        withheld = withheld_reason(relative, rules, is_folder=True)
        if withheld is not None:
            raise UnsafePathError(folder, withheld)
    target = Path(os.path.realpath(root.joinpath(*relative.split("/")))) if relative else root
    entries: list[FolderEntry] = []
    with os.scandir(target) as children:
        for child in children:
            entry = _served(root, relative, child, rules)
            if entry is not None:
                entries.append(entry)
    return sorted(entries, key=lambda e: (not e.is_folder, e.name.casefold(), e.name))


def _served(
    root: Path, relative: str, child: os.DirEntry[str], rules: IgnoreRules
) -> FolderEntry | None:
    if child.name.startswith("."):
        return None
    child_relative = f"{relative}/{child.name}" if relative else child.name
    try:
        real = Path(os.path.realpath(child.path))
        is_folder = child.is_dir()
    except OSError:
        return None
    if real != root and root not in real.parents:
        return None  # a link out of the vault
    for path in {child_relative, real.relative_to(root).as_posix()}:
        if _hidden(path, rules, is_folder=is_folder):
            return None
    return FolderEntry(child.name, is_folder)


def _hidden(relative: str, rules: IgnoreRules, *, is_folder: bool) -> bool:
    return is_own_path(relative) or is_excluded(relative, rules, is_folder=is_folder)
