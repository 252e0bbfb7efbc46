"""The files of a codebase folder inside the vault, as architect sees them: a bounded walk, a
module tree skeleton and the entry points.

The folder may be huge (a vendored dependency tree, a 14,000-file docs repository), so the walk
stops at ``MAX_FILES`` files or ``MAX_SECONDS`` seconds and says so; the skeleton shown to the
model is capped at ``SKELETON_LINES`` lines. Symbolic links are listed, never followed, and
hidden folders (``.git``, ``.obsidian``, ``.trash``) and dependency caches are not walked.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from vaultctx.errors import VaultctxError
from vaultctx.vault.private_paths import is_ignored
from vaultctx.vault.scanner import IgnoreRules

MAX_FILES = 20_000
MAX_SECONDS = 10.0
SKELETON_LINES = 400
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
ENTRY_NAMES = frozenset(
    {
        *(f"{stem}.{ext}" for stem in ("main", "index") for ext in ("ts", "js", "tsx", "jsx")),
        "main.py",
        "__main__.py",
        "main.rs",
        "lib.rs",
        "mod.rs",
        "main.go",
    }
)


class ScanPathError(VaultctxError):
    """The scan path is not a folder inside the vault."""


@dataclass
class Scan:
    """``files``: vault-relative paths, sorted; ``stopped``: why the walk ended early, if it
    did."""

    base: str  # the scan folder, vault-relative ("" for the whole vault)
    files: list[str] = field(default_factory=list)
    stopped: str | None = None


def scan_folder(
    vault: Path,
    path: str | None,
    *,
    exclude: frozenset[str] = frozenset(),
    rules: IgnoreRules | None = None,
    max_files: int = MAX_FILES,
    max_seconds: float = MAX_SECONDS,
) -> Scan:
    """Every file under the vault-relative folder ``path`` (None, "" or "." for the whole
    vault), except ``exclude`` and what ``rules`` ignore (a private folder's files are not shown
    to a model, not even their names). A path that could leave the vault is refused before the
    disk is touched; one that leaves it through a symbolic link is refused after resolving."""
    from vaultctx.vault.paths import normalize_vault_path

    root = Path(os.path.realpath(vault))
    base = ""
    if path is not None and path.strip() not in ("", ".", "./"):
        base = normalize_vault_path(path.strip()).rstrip("/")
    folder = Path(os.path.realpath(root.joinpath(*base.split("/")) if base else root))
    if folder != root and root not in folder.parents:
        raise ScanPathError(
            f"architect: the scan path {path} leads outside the vault through a symbolic link",
            "give a folder inside the vault",
        )
    if not folder.is_dir():
        raise ScanPathError(
            f"architect: {path} is not a folder in the vault",
            "give a vault-relative folder, e.g. `src`, or nothing for the whole vault",
        )
    scan = Scan(base)
    deadline = time.monotonic() + max_seconds
    prefix = f"{base}/" if base else ""
    for current, folders, files in os.walk(folder):
        relative = Path(current).relative_to(folder).as_posix()
        inside = "" if relative == "." else f"{relative}/"
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in SKIPPED_FOLDERS
            and not (rules and is_ignored(f"{prefix}{inside}{name}", rules, folder=True))
        )
        for name in sorted(files):
            if name.startswith("."):
                continue
            file = f"{prefix}{inside}{name}"
            if file in exclude or (rules and is_ignored(file, rules, folder=False)):
                continue
            if len(scan.files) >= max_files:
                scan.stopped = f"the scan stopped at {max_files:,} files (its limit)"
                return _sorted(scan)
            scan.files.append(file)
        if time.monotonic() > deadline:
            scan.stopped = f"the scan stopped after {max_seconds:g} s (its time limit)"
            return _sorted(scan)
    return _sorted(scan)


def _sorted(scan: Scan) -> Scan:
    scan.files.sort()
    return scan


def entry_points(files: list[str]) -> list[str]:
    return [file for file in files if PurePosixPath(file).name in ENTRY_NAMES]


def skeleton(scan: Scan, *, max_lines: int = SKELETON_LINES) -> tuple[list[str], int]:
    """The module tree under the scan folder, at most ``max_lines`` lines, and how many lines
    of the full tree were left out.

    The full tree has one line per folder (``name/``) and file, indented by depth. When it is
    longer than ``max_lines``, files give way to structure: the top-level files, then the
    folders (each with its file count), level by level as far as they fit; a folder whose level
    is only partly shown has the rest of its siblings left out, and a tree whose top-level files
    alone are too many is cut.
    """
    cut = len(scan.base) + 1 if scan.base else 0
    paths = [tuple(file[cut:].split("/")) for file in scan.files]
    full = _tree(paths)
    if len(full) <= max_lines:
        return full, 0
    counts: dict[tuple[str, ...], int] = {}
    top_files = [parts[0] for parts in paths if len(parts) == 1]
    for parts in paths:
        for depth in range(1, len(parts)):
            counts[parts[:depth]] = counts.get(parts[:depth], 0) + 1
    # Breadth first: every folder of one level before any of the next, parents before children.
    room = max(max_lines - len(top_files), 0)
    shown = sorted(sorted(counts, key=lambda key: (len(key), key))[:room])
    lines = top_files + [
        "  " * (len(key) - 1) + f"{key[-1]}/ ({_files(counts[key])})" for key in shown
    ]
    lines = lines[:max_lines]
    return lines, len(full) - len(lines)


def _files(count: int) -> str:
    return f"{count:,} file" if count == 1 else f"{count:,} files"


def _tree(paths: list[tuple[str, ...]]) -> list[str]:
    lines: list[str] = []
    opened: tuple[str, ...] = ()
    for parts in paths:
        folders = parts[:-1]
        common = 0
        while common < min(len(opened), len(folders)) and opened[common] == folders[common]:
            common += 1
        for depth in range(common, len(folders)):
            lines.append("  " * depth + folders[depth] + "/")
        opened = folders
        lines.append("  " * len(folders) + parts[-1])
    return lines


__all__ = ["ENTRY_NAMES", "Scan", "ScanPathError", "entry_points", "scan_folder", "skeleton"]
