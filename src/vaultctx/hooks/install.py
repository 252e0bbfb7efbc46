"""``vaultctx hooks install``: add the hooks to Claude Code's ``settings.json``, safely.

The settings file holds the user's permissions, other hooks and preferences, so installing means
merging: vaultctx's own entries (recognised by their command) are added or updated in place, and
everything else is kept as it was. The previous file is copied to ``settings.json.bak`` first, and
a file that does not parse is never touched.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOOK_MODULE = "vaultctx.hooks"
CONTEXT_TIMEOUT_SECONDS = 10
COMPRESS_TIMEOUT_SECONDS = 10
_CONTEXT_MATCHER = "Edit|MultiEdit|Write|Bash"


class HookInstallError(Exception):
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
)


def hook_command(kind: str, vault: Path, db: Path | None) -> str:
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
    """True for a vaultctx hook command: ``… -m vaultctx.hooks KIND …`` as this installer writes
    it, or ``vaultctx hook KIND …`` as the docs show (any interpreter path, any vault)."""
    if not isinstance(command, str):
        return False
    words = [word.strip("'\"") for word in command.split()]
    for index, word in enumerate(words):
        if word == HOOK_MODULE:
            found = words[index + 1 : index + 2]
        elif word.endswith("vaultctx") and words[index + 1 : index + 2] == ["hook"]:
            found = words[index + 2 : index + 3]
        else:
            continue
        if found and (kind is None or found[0] == kind):
            return True
    return False


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
        raise HookInstallError(f'{path}: "hooks" is not an object; fix it by hand first')
    for entry in ENTRIES:
        _merge(path, hooks, entry, commands[entry.kind])
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    events = [entry.event for entry in ENTRIES]
    if original is not None and settings == before:
        return InstallReport(path, None, False, events)
    backup = None
    if original is not None:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
    _write_atomically(path, text)
    return InstallReport(path, backup, True, events)


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise HookInstallError(f"cannot read {path} ({exc.strerror})") from exc
    if not original.strip():
        return original, {}
    try:
        settings = json.loads(original)
    except json.JSONDecodeError as exc:
        raise HookInstallError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "nothing was changed: fix the file (or move it away) and run again"
        ) from exc
    if not isinstance(settings, dict):
        raise HookInstallError(f"{path} does not hold a JSON object; nothing was changed")
    return original, settings


def _merge(path: Path, hooks: dict[str, Any], entry: HookEntry, command: str) -> None:
    """Update our hook in place wherever it is, else append a group of our own."""
    groups = hooks.setdefault(entry.event, [])
    if not isinstance(groups, list):
        raise HookInstallError(f'{path}: "hooks.{entry.event}" is not a list; fix it by hand')
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


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        if path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
