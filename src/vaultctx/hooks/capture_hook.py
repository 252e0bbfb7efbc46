"""``hook capture``: a tool's long output saved into the vault's inbox, for later search.

The guide's PostToolUse hook keeps any tool output over 500 characters. Here it is a capture like
``vaultctx capture`` (a draft note in the inbox, one ledger record, ``vaultctx undo`` removes it),
with three differences a hook needs:

- it is off until the user turns it on for a project (``vaultctx hooks capture on``); the
  projects that are on are kept in the user's state folder, never in the project, so a cloned
  repository cannot switch on copying its tool output into the user's notes;
- the output is scrubbed of credentials before it is written (a ``cat .env`` stays out);
- outputs that are vaultctx's own, or a note of this vault read back, are not captured again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs

from vaultctx.config import APP_NAME, load_config
from vaultctx.db_location import local_anchor

MIN_CAPTURE_CHARS = 500  # the guide's rule: only outputs longer than this are worth a note
MAX_CAPTURE_CHARS = 100_000  # a note, not a log dump: the rest is cut, and says so
SWITCH_FILE = "capture_projects.json"
TAG = "claude-code"
_OWN_COMMAND_WORDS = ("vaultctx hook", "vaultctx.hooks", "vaultctx capture")


def switch_file() -> Path:
    return Path(platformdirs.user_state_dir(APP_NAME)) / SWITCH_FILE


def captured_projects(path: Path | None = None) -> list[str]:
    """The project folders whose tool output is captured (a broken file: none)."""
    try:
        data = json.loads((path or switch_file()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    return [p for p in projects if isinstance(p, str)] if isinstance(projects, list) else []


def set_capture(project: Path, on: bool, path: Path | None = None) -> bool:
    """Turn capture on or off for ``project``; False when it already was."""
    from vaultctx.atomic_write import write_atomically

    where = path or switch_file()
    folder = str(project.resolve())
    projects = captured_projects(where)
    if (folder in projects) == on:
        return False
    projects = sorted({*projects, folder}) if on else [p for p in projects if p != folder]
    where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(where, json.dumps({"projects": projects}, indent=2) + "\n", mode=0o600)
    return True


def capture_is_on(folder: str | None, path: Path | None = None) -> bool:
    """True when ``folder`` is a project that is on, or inside one."""
    if not folder:
        return False
    here = Path(os.path.realpath(folder))
    return any(here == Path(p) or Path(p) in here.parents for p in captured_projects(path))


def output_text(response: Any) -> str:
    """What the tool returned, as text: Bash's stdout and stderr, a string, or JSON of the rest."""
    if isinstance(response, str):
        return response
    if isinstance(response, Mapping):
        streams = [response.get(key) for key in ("stdout", "stderr")]
        text = "\n".join(s for s in streams if isinstance(s, str) and s)
        if text:
            return text
        return json.dumps(response, ensure_ascii=False, indent=1)
    return "" if response is None else json.dumps(response, ensure_ascii=False)


def capture_answer(event: Mapping[str, Any], vault: str | None, db: str | None) -> str | None:
    """Capture the event's tool output when it qualifies; the new note's path, else None."""
    if event.get("hook_event_name") != "PostToolUse":
        return None
    tool = event.get("tool_name")
    tool_input = event.get("tool_input")
    if not isinstance(tool, str) or _is_own(tool_input):
        return None
    text = output_text(event.get("tool_response")).strip()
    if len(text) <= MIN_CAPTURE_CHARS:
        return None
    project = os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd")
    if not capture_is_on(project if isinstance(project, str) else None):
        return None
    config = load_config(vault, db)
    if _reads_this_vault(tool_input, config.vault):
        return None
    return _write(config.vault, local_anchor(config.db), tool, text, project)


def _is_own(tool_input: Any) -> bool:
    command = tool_input.get("command", "") if isinstance(tool_input, Mapping) else ""
    return isinstance(command, str) and any(word in command for word in _OWN_COMMAND_WORDS)


def _reads_this_vault(tool_input: Any, vault: Path) -> bool:
    """A note of this vault read back is already in it."""
    path = tool_input.get("file_path") if isinstance(tool_input, Mapping) else None
    if not isinstance(path, str):
        return False
    real, root = Path(os.path.realpath(path)), Path(os.path.realpath(vault))
    return real == root or root in real.parents


def _write(vault: Path, db: Path, tool: str, text: str, project: Any) -> str:
    from vaultctx.api import Vault
    from vaultctx.scrub import scrub_secrets

    if len(text) > MAX_CAPTURE_CHARS:
        text = text[:MAX_CAPTURE_CHARS] + f"\n\n… (cut at {MAX_CAPTURE_CHARS:,} characters)"
    body = scrub_secrets(text).text
    where = f" in {Path(project).name}" if isinstance(project, str) and project else ""
    fence = "````" if "```" in body else "```"
    note = f"Output of Claude Code's {tool} tool{where}.\n\n{fence}\n{body}\n{fence}\n"
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    title = f"{tool} output - {first[:40]}".strip(" -")
    with Vault(vault, db=db) as handle:
        result = handle.capture(note, title=title, tags=[TAG], source=f"claude-code-{tool}")
    return result.path
