"""What a tool may never change, move, delete or show: the vault's control files and whatever
its ignore rules exclude.

A prompt-injected note can ask a model to trash ``.indexignore`` and then read the diary it was
hiding, or to move ``journal/`` so ``journal/private/`` lands where no rule matches it. So the
rules themselves (``.indexignore``, ``vaultctx.toml``, every dotfile and dot-folder) are never
changed by a tool, which means they cannot be loosened in the middle of a turn; and a path is
judged by the rules as they are at the moment, before and after the operation, for every file
and folder a move or delete carries along. Every write, move and delete (``vault.writes``,
``ledger.changes``) and every read (``vault.paths``, the ``Vault`` read methods) asks here, so the
agent, the MCP server and the web UI share one answer.

The reasons never name a path below the one asked about: the name of an ignored note can be as
private as its text.
"""

from __future__ import annotations

import os
from pathlib import Path

from vaultctx.vault.scanner import IgnoreRule, IgnoreRules

# Settings files that are not dotfiles; matched by name at any depth, in any case (a
# case-insensitive file system opens `VaultCtx.TOML` too).
CONTROL_FILE_NAMES = frozenset({"vaultctx.toml"})

CONTROL_REASON = (
    "is a control file: dotfiles and dot-folders (.indexignore, .obsidian/, .git/, .trash/, …) "
    "and vaultctx.toml hold the vault's settings and ignore rules, which tools never change"
)
# ``ignored_reason`` names the rule after it: it matched the very path asked about.
IGNORED_REASON = "is excluded by the vault's ignore rules"
_NEVER_TOUCHED = "so tools never read, change, move or delete it"
# These two name no rule: it would tell of a path below the one asked about (see above).
HOLDS_IGNORED_REASON = (
    "holds files or folders the vault's ignore rules exclude (.indexignore, or ignore in "
    "vaultctx.toml), and moving or deleting it would carry them along, so tools never move or "
    "delete it"
)
BECOMES_IGNORED_REASON = (
    "would put files where the vault's ignore rules exclude them (.indexignore, or ignore in "
    "vaultctx.toml), so tools never move anything there"
)
HOLDS_CONTROL_REASON = (
    "holds a control file (a dotfile, a dot-folder or vaultctx.toml), which tools never move or "
    "delete"
)
UNREADABLE_REASON = (
    "holds a folder that cannot be read, so what a move or delete would carry along cannot be "
    "checked against the ignore rules"
)
FIX = (
    "leave it alone: only the user changes control files and ignored notes, in Obsidian or a "
    "file manager; for a folder, move or delete the notes you mean one at a time"
)


def is_control_path(relative: str) -> bool:
    """Whether the vault-relative ``relative`` is, or is inside, a control file or folder."""
    return any(
        part.startswith(".") or part.casefold() in CONTROL_FILE_NAMES
        for part in relative.split("/")
    )


def is_ignored(relative: str, rules: IgnoreRules, *, folder: bool | None = None) -> bool:
    """Whether ``rules`` exclude ``relative`` or a folder above it. ``folder`` says what it is;
    ``None`` (not known, or not there yet) asks both ways, the stricter answer."""
    parts = relative.split("/")
    if any(rules.excludes_folder("/".join(parts[:depth])) for depth in range(1, len(parts))):
        return True
    if folder is not False and rules.excludes_folder(relative):
        return True
    return folder is not True and rules.excludes_file(relative, parts[-1], True)


def private_reason(relative: str, rules: IgnoreRules, *, folder: bool | None = None) -> str | None:
    """Why a tool may not touch ``relative`` (a normalized vault-relative path), or None."""
    if is_control_path(relative):
        return CONTROL_REASON
    if is_ignored(relative, rules, folder=folder):
        return ignored_reason(rules.excluding_rule(relative, folder=folder))
    return None


def ignored_reason(rule: IgnoreRule | None) -> str:
    """The refusal of an ignored path, naming the rule that excludes it (``.indexignore``'s line,
    ``ignore`` in vaultctx.toml, or a default)."""
    return (
        f"{IGNORED_REASON} ({rule}), {_NEVER_TOUCHED}"
        if rule
        else f"{IGNORED_REASON}, {_NEVER_TOUCHED}"
    )


def tree_reason(
    root: Path, source: str, rules: IgnoreRules, destination: str | None = None
) -> str | None:
    """Why the folder ``source`` (under the real vault ``root``) may not be moved to
    ``destination`` (or deleted, when None), or None: every file and folder under it is checked
    where it is and where it would land. Links are not followed (a folder holding one is refused
    elsewhere)."""
    top = root.joinpath(*source.split("/"))
    unreadable: list[OSError] = []
    for current, folders, files in os.walk(top, followlinks=False, onerror=unreadable.append):
        below = Path(current).relative_to(top).as_posix()
        prefix = "" if below == "." else below + "/"
        for names, is_folder in ((folders, True), (files, False)):
            for name in names:
                inner = prefix + name
                reason = _moved_reason(source, destination, inner, rules, is_folder)
                if reason is not None:
                    return reason
    return UNREADABLE_REASON if unreadable else None


def _moved_reason(
    source: str, destination: str | None, inner: str, rules: IgnoreRules, is_folder: bool
) -> str | None:
    if is_control_path(inner):
        return HOLDS_CONTROL_REASON
    if is_ignored(f"{source}/{inner}", rules, folder=is_folder):
        return HOLDS_IGNORED_REASON
    if destination is not None and is_ignored(f"{destination}/{inner}", rules, folder=is_folder):
        return BECOMES_IGNORED_REASON
    return None
