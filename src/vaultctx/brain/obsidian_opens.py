"""Which notes the user opened in Obsidian, and about when, for the review queue
(docs/second-brain.md#reports-without-a-model).

Obsidian keeps the files last opened in the vault's ``.obsidian/workspace.json``
(``lastOpenFiles``, most recent first; opening a file moves it to the front). The list has no
times, so the time of an open is inferred: the files at the head of the list that were not at
the head when the queue last looked were opened since, by the time the file was last written
(its modification time). On the first look every listed note counts as opened then.

The file is the vault's, and a vault may come from anyone: it is read only when it resolves
inside the vault, is a regular file and at most ``MAX_BYTES``; only ``MAX_ENTRIES`` entries are
looked at; and an entry counts only when it is a note the index has, at that exact path inside
the vault (no link, no ``..``, nothing absolute). Anything else is ignored, so a hostile list can
at most reorder the queue among the user's own notes.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

WORKSPACE = (".obsidian", "workspace.json")
# Obsidian's own file is a few kilobytes to a few hundred; a larger one is not its.
MAX_BYTES = 1_000_000
# Obsidian lists 10 (newer versions a few more); more than this is not Obsidian's list.
MAX_ENTRIES = 100
MAX_PATH_CHARS = 1_024


@dataclass(frozen=True)
class OpenFiles:
    """The notes listed as last opened (most recent first), when the list was last written
    (epoch seconds, never after now), and why the file was ignored, if it was."""

    paths: list[str] = field(default_factory=list)
    written: float = 0.0
    notices: list[str] = field(default_factory=list)


def last_open_files(vault: Path, notes: Collection[str], now: float) -> OpenFiles:
    """The vault's ``lastOpenFiles`` that are indexed ``notes``; empty when there is no file."""
    root = Path(os.path.realpath(vault))
    listed = root.joinpath(*WORKSPACE)
    try:
        raw, written = _read_bounded(root, listed)
    except FileNotFoundError:
        return OpenFiles()
    except (OSError, ValueError) as exc:
        return OpenFiles(notices=[_ignored(str(exc))])
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return OpenFiles(notices=[_ignored("not JSON")])
    entries = data.get("lastOpenFiles") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return OpenFiles(written=min(written, now))
    paths = [p for p in entries[:MAX_ENTRIES] if _is_note_here(root, p, notes)]
    return OpenFiles(list(dict.fromkeys(paths)), min(written, now))


def opened_since(previous: Sequence[str], current: Sequence[str]) -> list[str]:
    """The head of ``current`` opened since ``previous`` was seen: Obsidian moves an opened
    file to the front, so what follows the head is ``previous`` without those, in order (its
    tail may have fallen off the end)."""
    for k in range(len(current) + 1):
        head = set(current[:k])
        rest = [p for p in previous if p not in head][: len(current) - k]
        if list(current[k:]) == rest:
            return list(current[:k])
    return list(current)  # not reached: k == len(current) always matches


def record_opens(
    opened: dict[str, float], previous: Sequence[str], seen: OpenFiles
) -> dict[str, float]:
    """``opened`` (path → when last opened) with the opens ``seen`` shows since ``previous``."""
    updated = dict(opened)
    for path in opened_since(previous, seen.paths):
        updated[path] = max(updated.get(path, 0.0), seen.written)
    return updated


def _read_bounded(root: Path, listed: Path) -> tuple[bytes, float]:
    """The file's bytes and modification time: only inside the vault, only a regular file
    (never a FIFO or a device, which could block or never end), only up to ``MAX_BYTES``."""
    real = Path(os.path.realpath(listed))
    if root not in real.parents:
        if not os.path.lexists(listed):
            raise FileNotFoundError(listed)
        raise ValueError("it resolves outside the vault")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(real, flags)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_BYTES:
            raise ValueError(f"over {MAX_BYTES:,} bytes")
        raw = handle.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ValueError(f"over {MAX_BYTES:,} bytes")
    return raw, info.st_mtime


def _is_note_here(root: Path, entry: object, notes: Collection[str]) -> bool:
    """An indexed note at exactly this vault path: no link on the way, nothing outside."""
    if not isinstance(entry, str) or not entry or len(entry) > MAX_PATH_CHARS or "\0" in entry:
        return False
    pure = PurePosixPath(entry)
    if pure.is_absolute() or ".." in pure.parts or "\\" in entry or entry not in notes:
        return False
    where = root.joinpath(*pure.parts)
    return os.path.realpath(where) == str(where) and where.is_file()


def _ignored(problem: str) -> str:
    return (
        f"ignored the vault's .obsidian/workspace.json ({problem}); the review queue goes by "
        "when notes changed"
    )
