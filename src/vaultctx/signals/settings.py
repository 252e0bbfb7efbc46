"""``[signals]`` in vaultctx.toml: where signals wait, where filed ones go, which feeds to read.

A vault's own vaultctx.toml travels with the vault (sync, a cloned repo), so it may choose the
folders but neither ``feeds`` nor ``allow_hosts``: a feed is a server vaultctx contacts from the
user's address, and ``allow_hosts`` would point it at the user's router or a service on their
machine. Both are read from the user's own config file only (``table_values`` leaves them out of
the vault's, with a notice; destination_keys.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from vaultctx.config import ConfigError, table_values, vault_relative_folder

DEFAULT_FOLDER = "05-signals"
DEFAULT_MAX_ENTRIES = 20
DEFAULT_MAX_NOTE_CHARS = 20_000
MAX_FEEDS = 100
ENTRY_RANGE = (1, 200)
NOTE_CHARS_RANGE = (500, 200_000)

_KEYS = (
    "inbox",
    "folder",
    "feeds",
    "max_entries_per_feed",
    "max_note_chars",
    "allow_hosts",
    "project_folders",
)


@dataclass(frozen=True)
class SignalSettings:
    """``inbox`` None: the capture inbox (``inbox_folder``, else ``00-inbox`` or ``Inbox``)."""

    inbox: str | None = None
    folder: str = DEFAULT_FOLDER
    feeds: tuple[str, ...] = ()
    max_entries_per_feed: int = DEFAULT_MAX_ENTRIES
    max_note_chars: int = DEFAULT_MAX_NOTE_CHARS
    allow_hosts: tuple[str, ...] = ()
    # None: every top-level folder named "projects" after its number (01-projects, 01. Projects).
    project_folders: tuple[str, ...] | None = None


def load_signal_settings(vault: Path, user_config_dir: Path | None = None) -> SignalSettings:
    values: dict[str, object] = {}
    for key, (path, value) in table_values(vault, "signals", user_config_dir).items():
        if key not in _KEYS:
            raise ConfigError(
                f"{path}: unknown setting [signals] {key}", f"use one of: {', '.join(_KEYS)}"
            )
        if key in ("inbox", "folder"):
            if isinstance(value, str) and not value.strip():
                continue  # blank means the default
            values[key] = vault_relative_folder(f"[signals] {key}", value, path)
        elif key == "feeds":
            urls = (_feed_url(url, path) for url in _strings(key, value, path))
            values[key] = tuple(dict.fromkeys(urls))  # a feed listed twice is read once
            if len(values[key]) > MAX_FEEDS:  # type: ignore[arg-type]
                raise ConfigError(
                    f"{path}: [signals] feeds lists more than {MAX_FEEDS} feeds",
                    f"keep at most {MAX_FEEDS}",
                )
        elif key == "max_entries_per_feed":
            values[key] = _number(key, value, ENTRY_RANGE, path)
        elif key == "max_note_chars":
            values[key] = _number(key, value, NOTE_CHARS_RANGE, path)
        elif key == "allow_hosts":
            values[key] = tuple(host.strip().lower() for host in _strings(key, value, path))
        else:  # project_folders
            values[key] = tuple(
                vault_relative_folder("[signals] project_folders", folder, path)
                for folder in _strings(key, value, path)
            )
    return SignalSettings(**values)  # type: ignore[arg-type]


def _strings(key: str, value: object, path: Path) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(
            f"{path}: [signals] {key} must be a list of strings, got {value!r}",
            f'write {key} = ["…", "…"]',
        )
    return [item for item in value if item.strip()]


def _number(key: str, value: object, bounds: tuple[int, int], path: Path) -> int:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            f"{path}: [signals] {key} must be a whole number from {low} to {high}, got {value!r}",
            f"write e.g. {key} = {low if low > 1 else high // 10}",
        )
    return value


def _feed_url(url: str, path: Path) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"{path}: [signals] feeds: {url!r} is not an http(s) address",
            'write each feed as "https://example.com/feed.xml"',
        )
    return url


__all__ = ["DEFAULT_FOLDER", "SignalSettings", "load_signal_settings"]
