"""``open_note``: show a note in Obsidian through its ``obsidian://open`` link.

The link is handed to the OS opener (``xdg-open``, ``open``, ``os.startfile``) as one argument,
never through a shell, and only where a desktop session can show it: on Linux when ``DISPLAY`` or
``WAYLAND_DISPLAY`` is set, always on macOS and Windows. Elsewhere (SSH, a container, CI) the tool
returns the link for the user to open.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from vaultctx.agent.note_tools import read_or_failure

if TYPE_CHECKING:
    from vaultctx.agent.tool_contract import ToolContext


async def open_note(context: ToolContext, args: dict[str, Any]) -> str:
    note = read_or_failure(context, args["path"])
    if isinstance(note, str):
        return note
    uri = obsidian_uri(context.vault.path.name, note.path)
    opener = context.open_uri or open_with_desktop
    if opener(uri):
        return f"Note opened: {note.path}"
    return (
        f"No desktop session to open Obsidian in; give the user this link to open "
        f"{note.path}: {uri}"
    )


def obsidian_uri(vault_name: str, path: str) -> str:
    """``obsidian://open?vault=NAME&file=PATH``, both parts percent-encoded (``/`` too)."""
    return f"obsidian://open?vault={quote(vault_name, safe='')}&file={quote(path, safe='')}"


def has_desktop(platform: str = sys.platform, env: Mapping[str, str] | None = None) -> bool:
    environ = os.environ if env is None else env
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def open_with_desktop(uri: str) -> bool:
    """Hand ``uri`` to the OS opener; False when there is no desktop session or no opener."""
    if not has_desktop():
        return False
    if sys.platform.startswith("win"):
        try:
            os.startfile(uri)  # type: ignore[attr-defined,unused-ignore]  # Windows only
        except OSError:
            return False
        return True
    command = ["open", uri] if sys.platform == "darwin" else ["xdg-open", uri]
    try:
        subprocess.Popen(  # a fixed program and one argument, no shell
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    return True
