"""``vaultctx hooks install`` and ``uninstall``: Claude Code's ``settings.json``, safely.

The settings file holds the user's permissions, other hooks and preferences, so installing means
merging: vaultctx's own entries (recognised by their exact command, so a user's own hook that
merely mentions vaultctx is never taken for ours) are added or updated in place, and everything else
is kept as it was; uninstalling removes exactly those entries. The previous file is copied to
``settings.json.bak`` first (``.bak.1``… once that exists), a file that does not parse is never
touched, and the write goes through ``atomic_write``, which follows no link planted in the
project's ``.claude`` folder.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultctx.errors import VaultctxError
from vaultctx.tool_settings import read_settings, settings_object, write_settings

HOOK_MODULE = "vaultctx.hooks"
CONTEXT_TIMEOUT_SECONDS = 10
COMPRESS_TIMEOUT_SECONDS = 10
# A capture writes a note and updates the index: more than a search, still bounded.
CAPTURE_TIMEOUT_SECONDS = 30
_CONTEXT_MATCHER = "Edit|MultiEdit|Write|Bash"
_CLI_NAMES = ("vaultctx", "vaultctx.exe")


class HookInstallError(VaultctxError):
    """The settings file cannot be updated safely; nothing was written."""


@dataclass(frozen=True)
class HookEntry:
    """One hook to install: ``kind`` is the hook command (context or compress)."""

    event: str
    matcher: str | None
    kind: str
    timeout: int


@dataclass(frozen=True)
class InstallReport:
    path: Path
    backup: Path | None
    changed: bool
    events: list[str]


ENTRIES = (
    HookEntry("UserPromptSubmit", None, "context", CONTEXT_TIMEOUT_SECONDS),
    HookEntry("PreToolUse", _CONTEXT_MATCHER, "context", CONTEXT_TIMEOUT_SECONDS),
    HookEntry("PostToolUse", "Bash", "compress", COMPRESS_TIMEOUT_SECONDS),
    # Every tool; it captures only in the projects turned on (hooks/capture_hook.py).
    HookEntry("PostToolUse", None, "capture", CAPTURE_TIMEOUT_SECONDS),
)
HOOK_KINDS = tuple(dict.fromkeys(entry.kind for entry in ENTRIES))


def hook_command(kind: str, vault: Path, db: Path | str | None) -> str:
    """The shell command Claude Code runs: this interpreter, absolute paths, no CLI start-up.

    Claude Code runs hooks from the project folder with the user's shell, so everything is
    absolute and quoted; ``--db`` only when it is not the vault's default.
    """
    python = str(Path(sys.executable).absolute())  # not resolved: a venv's python is a symlink
    words = [python, "-m", HOOK_MODULE, kind, "--vault", str(vault)]
    if db is not None:
        words += ["--db", str(db)]
    return " ".join(shlex.quote(word) for word in words)


def is_vaultctx_command(command: object, kind: str | None = None) -> bool:
    """True only for our own hook commands, which the installer may then rewrite.

    That is ``PYTHON -m vaultctx.hooks KIND --vault …`` as ``hook_command`` writes it (any
    interpreter, any vault), or ``vaultctx hook KIND …`` as the docs show, where the program's
    file name is exactly ``vaultctx``. Anything else, ``/opt/myvaultctx hook context`` or a script
    that calls us, is the user's own hook and is left alone.
    """
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: not something we wrote
        return False
    if words[1:3] == ["-m", HOOK_MODULE] and words[4:5] == ["--vault"] and len(words) > 5:
        found = words[3]
    elif len(words) > 2 and _file_name(words[0]) in _CLI_NAMES and words[1] == "hook":
        found = words[2]
    else:
        return False
    return kind is None or found == kind


def _file_name(program: str) -> str:
    """The last part of a path with either separator (hooks may have been written on Windows)."""
    return re.split(r"[\\/]", program)[-1]


def settings_path(project: Path | None, user: bool = False) -> Path:
    if user:
        return Path.home() / ".claude" / "settings.json"
    return (project or Path.cwd()) / ".claude" / "settings.json"


def install_hooks(path: Path, commands: dict[str, str]) -> InstallReport:
    """Merge the entries of ``ENTRIES`` (commands by kind) into the settings file at ``path``."""
    original, settings = _load(path)
    before = copy.deepcopy(settings)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise HookInstallError(f'{path}: "hooks" is not an object', "fix it by hand first")
    entries = [entry for entry in ENTRIES if entry.kind in commands]
    for entry in entries:
        _merge(path, hooks, entry, commands[entry.kind])
    events = list(dict.fromkeys(entry.event for entry in entries))
    if original is not None and settings == before:
        return InstallReport(path, None, False, events)
    return InstallReport(path, _save(path, settings), True, events)


def uninstall_hooks(path: Path) -> InstallReport:
    """Remove our hooks (``is_vaultctx_command``) from the settings file at ``path``; a group or
    event that held only ours goes with them, everything else stays. ``events`` lists the events
    that had one."""
    original, settings = _load(path)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HookInstallError(f'{path}: "hooks" is not an object', "fix it by hand first")
    events = [event for event, groups in hooks.items() if _remove_ours(groups)]
    if original is None or not events:
        return InstallReport(path, None, False, [])
    for event in events:
        if not hooks[event]:
            del hooks[event]
    if not hooks:
        del settings["hooks"]
    return InstallReport(path, _save(path, settings), True, events)


def _remove_ours(groups: object) -> bool:
    """Take our hooks out of an event's groups (a group left empty goes too); True if any."""
    if not isinstance(groups, list):
        return False
    found = False
    for group in list(groups):
        group_hooks = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(group_hooks, list):
            continue
        kept = [
            hook
            for hook in group_hooks
            if not (isinstance(hook, dict) and is_vaultctx_command(hook.get("command")))
        ]
        if len(kept) < len(group_hooks):
            found = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return found


def _save(path: Path, settings: dict[str, Any]) -> Path | None:
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    fix = "make the file and its folder writable, then run again"
    return write_settings(path, text, HookInstallError, "nothing was changed", fix)


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text and settings; a link we would not write through is refused unread."""
    unchanged = "nothing was changed"
    readable = "make the file readable, then run again"
    original = read_settings(path, HookInstallError, unchanged, readable)
    fixed = "fix the file (or move it away) and run again"
    return original, settings_object(original, HookInstallError, unchanged, fixed, str(path))


def _merge(path: Path, hooks: dict[str, Any], entry: HookEntry, command: str) -> None:
    """Update our hook in place wherever it is, else append a group of our own."""
    groups = hooks.setdefault(entry.event, [])
    if not isinstance(groups, list):
        raise HookInstallError(
            f'{path}: "hooks.{entry.event}" is not a list', "fix it by hand first"
        )
    wanted = {"type": "command", "command": command, "timeout": entry.timeout}
    for group in groups:
        group_hooks = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(group_hooks, list):
            continue
        for position, hook in enumerate(group_hooks):
            if isinstance(hook, dict) and is_vaultctx_command(hook.get("command"), entry.kind):
                group_hooks[position] = {**hook, **wanted}
                return
    ours: dict[str, Any] = {} if entry.matcher is None else {"matcher": entry.matcher}
    ours["hooks"] = [wanted]
    groups.append(ours)
