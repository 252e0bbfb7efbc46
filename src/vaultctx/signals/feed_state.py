"""Which feed entries were taken already, so a second run does not file them twice.

Kept per vault in the user state dir (``<state dir>/signals/<vault name>-<digest>.json``: the
user's reading history is not the vault's content, and sync tools never copy it): per feed URL,
the keys (entry id, else link) of the newest ``MAX_KEYS_PER_FEED`` entries taken. An entry
whose link is already the ``source`` of a note in the inbox or the signals folder is not taken
either, so a lost state file does not bring everything back.

An entry the user deleted after it was taken stays taken: deleting is how a user says "not this".
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import platformdirs

from vaultctx.atomic_write import write_atomically
from vaultctx.config import APP_NAME, default_db_path

MAX_KEYS_PER_FEED = 2000
MAX_STATE_BYTES = 8_000_000
MAX_SOURCE_SCAN_FILES = 5000
_SOURCE_LINE = re.compile(r"^source:[ \t]*['\"]?([^'\"\s]+)['\"]?[ \t]*$", re.MULTILINE)


def state_file(vault: Path) -> Path:
    name = default_db_path(vault).stem
    return Path(platformdirs.user_state_dir(APP_NAME)) / "signals" / f"{name}.json"


def load_seen(path: Path) -> dict[str, list[str]]:
    """Feed URL → keys taken; an unreadable or foreign file counts as empty (the vault check
    below still keeps duplicates out)."""
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    feeds = data.get("feeds") if isinstance(data, dict) else None
    if not isinstance(feeds, dict):
        return {}
    return {
        str(url): [key for key in keys if isinstance(key, str)]
        for url, keys in feeds.items()
        if isinstance(keys, list)
    }


def save_seen(path: Path, seen: dict[str, list[str]]) -> None:
    trimmed = {url: keys[-MAX_KEYS_PER_FEED:] for url, keys in seen.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"version": 1, "feeds": trimmed}, ensure_ascii=False, indent=1)
    write_atomically(path, text.encode("utf-8"), mode=0o600)  # reading history: private


def sources_in(vault: Path, folders: tuple[str, ...]) -> set[str]:
    """The ``source`` URLs of notes under ``folders`` (read from each file's first 4 KB)."""
    found: set[str] = set()
    root = Path(os.path.realpath(vault))
    seen_files = 0
    for folder in folders:
        start = root / folder
        if not start.is_dir() or start.is_symlink():
            continue
        for directory, subfolders, files in os.walk(start):
            subfolders[:] = [name for name in subfolders if not name.startswith(".")]
            for name in files:
                if not name.endswith(".md"):
                    continue
                seen_files += 1
                if seen_files > MAX_SOURCE_SCAN_FILES:
                    return found
                try:
                    with open(os.path.join(directory, name), "rb") as handle:
                        head = handle.read(4096).decode("utf-8", "replace")
                except OSError:
                    continue
                match = _SOURCE_LINE.search(head)
                if match:
                    found.add(match.group(1))
    return found


__all__ = ["load_seen", "save_seen", "sources_in", "state_file"]
