"""What a path in the vault holds at one moment: nothing, a file's bytes, or a folder tree.

A change is recorded as the state of each path it touched before and after; undo compares the
present state with the recorded "after" (content, not modification times) and writes the "before"
back. File contents are held as SHA-256 digests here; the bytes themselves go to the ledger's
blob folder (``ledger.store``), once per distinct content, so trashing a folder of 1,000 notes
stores each note once although it appears before and after.

Symbolic links are never followed: one found in a tree is recorded as a link (so a link that
appears later counts as a change), and a change never creates one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultctx.vault.writes import digest

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)


@dataclass(frozen=True)
class Missing:
    """Nothing at the path."""

    def as_json(self) -> dict[str, Any]:
        return {"kind": "missing"}


@dataclass(frozen=True)
class FileState:
    """A regular file: its content digest and size; the mode is restored but never compared
    (a ``chmod`` is not an edit)."""

    sha256: str
    size: int
    mode: int = field(default=0o644, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {"kind": "file", "sha256": self.sha256, "size": self.size, "mode": self.mode}


@dataclass(frozen=True)
class FolderState:
    """A folder and everything in it, children sorted by name."""

    children: tuple[tuple[str, State], ...]

    def as_json(self) -> dict[str, Any]:
        return {"kind": "folder", "children": {name: s.as_json() for name, s in self.children}}


@dataclass(frozen=True)
class LinkState:
    """A symbolic link (recorded to notice it, never created)."""

    target: str

    def as_json(self) -> dict[str, Any]:
        return {"kind": "link", "target": self.target}


State = Missing | FileState | FolderState | LinkState
MISSING = Missing()


def take(path: Path, blobs: dict[str, bytes] | None = None) -> State:
    """The state of ``path``; the bytes of every file in it are added to ``blobs`` when given."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return MISSING
    if stat.S_ISLNK(info.st_mode):
        return LinkState(os.readlink(path))
    if stat.S_ISDIR(info.st_mode):
        names = sorted(os.listdir(path))
        return FolderState(tuple((name, take(path / name, blobs)) for name in names))
    if not stat.S_ISREG(info.st_mode):
        return LinkState(f"<{stat.filemode(info.st_mode)} special file>")
    data = read_no_follow(path)
    sha = digest(data)
    if blobs is not None:
        blobs[sha] = data
    return FileState(sha, len(data), stat.S_IMODE(info.st_mode))


def read_no_follow(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | _NO_FOLLOW | _BINARY)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def file_state(data: bytes, mode: int) -> FileState:
    return FileState(digest(data), len(data), mode)


def wrap(state: State, parts: list[str]) -> State:
    """``state`` as seen from a folder ``len(parts)`` levels up: nested in new folders named
    ``parts`` (the folders a change created on the way to its file)."""
    for name in reversed(parts):
        state = FolderState(((name, state),))
    return state


def files_in(state: State, prefix: str) -> Iterator[tuple[str, State]]:
    """Every file, link and empty folder in ``state``, with its vault-relative path."""
    if isinstance(state, FolderState):
        if not state.children:
            yield prefix, state
        for name, child in state.children:
            yield from files_in(child, f"{prefix}/{name}")
    elif not isinstance(state, Missing):
        yield prefix, state


def differing_paths(recorded: State, current: State, prefix: str) -> list[str]:
    """The vault-relative paths at which ``current`` differs from ``recorded``."""
    if recorded == current:
        return []
    if isinstance(recorded, FolderState) and isinstance(current, FolderState):
        mine, theirs = dict(recorded.children), dict(current.children)
        found: list[str] = []
        for name in sorted(set(mine) | set(theirs)):
            found += differing_paths(
                mine.get(name, MISSING), theirs.get(name, MISSING), f"{prefix}/{name}"
            )
        return found
    return [prefix]


def digests(state: State) -> set[str]:
    """The content digests a state refers to."""
    if isinstance(state, FileState):
        return {state.sha256}
    if isinstance(state, FolderState):
        return set().union(*(digests(child) for _, child in state.children))
    return set()
