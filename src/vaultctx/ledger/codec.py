"""How a record spells the paths and states it holds, so it can hold any name a file system does.

A note may be called ``AC\\DC.md``, hold a tab, or (on Linux) bytes that are not UTF-8; the vault
accepts all of them, so the ledger must too, or one odd name would stop every record after it.
Format 2 (``VERSION``) stores each name percent-encoded from its file-system bytes: plain ASCII,
``/`` only between names, and exactly one spelling per path. Reading a record back decodes each
name and refuses what no file system holds as a name (empty, ``.``, ``..``, a ``/`` or NUL inside)
and any spelling but the canonical one (``a//b.md``, ``./a.md``, ``%61.md``): the path written
is the path read. Confinement itself is by resolving at undo time (``undo.py``), never by a list
of forbidden characters. Format 1 records (before the encoding) stored names as they were and
are read with the same structural checks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote_from_bytes, unquote_to_bytes

from vaultctx.ledger.snapshot import MISSING, FileState, FolderState, LinkState, State

_SAFE = b"-._~ "  # spaces stay readable; every other byte outside [A-Za-z0-9] is escaped


def encode_name(name: str) -> str:
    """One file or folder name as stored: its bytes percent-encoded."""
    return quote_from_bytes(os.fsencode(name), safe=_SAFE)


def decode_name(stored: str) -> str:
    """A stored name back to the name on disk; ``ValueError`` for one no file system holds or a
    spelling that is not the canonical one."""
    if not isinstance(stored, str):
        raise ValueError("a name must be a string")
    try:
        raw = unquote_to_bytes(stored)
    except UnicodeEncodeError as exc:  # a non-ASCII character: never written by encode_name
        raise ValueError(f"the name {stored!r} is not percent-encoded") from exc
    check_name_bytes(raw, stored)
    name = os.fsdecode(raw)
    if encode_name(name) != stored:
        raise ValueError(f"the name {stored!r} is not in its canonical spelling")
    return name


def check_name_bytes(raw: bytes, shown: str) -> None:
    if raw in (b"", b".", b"..") or b"/" in raw or b"\x00" in raw:
        raise ValueError(f"{shown!r} is not a file or folder name")


def encode_path(path: str) -> str:
    return "/".join(encode_name(part) for part in path.split("/"))


def decode_path(stored: str, version: int) -> str:
    """A stored vault-relative path back to the path on disk (see the module's docstring)."""
    if not isinstance(stored, str):
        raise ValueError("a path must be a string")
    if version == 1:
        for part in stored.split("/"):
            check_name_bytes(os.fsencode(part), part)
        return stored
    return "/".join(decode_name(part) for part in stored.split("/"))


def state_to_json(state: State) -> dict[str, Any]:
    """A state as format 2 stores it (folder children by encoded name)."""
    if isinstance(state, FolderState):
        return {
            "kind": "folder",
            "children": {encode_name(name): state_to_json(child) for name, child in state.children},
        }
    if isinstance(state, LinkState):
        return {"kind": "link", "target": quote_from_bytes(os.fsencode(state.target), safe=_SAFE)}
    return state.as_json()


def state_from_json(raw: Any, version: int) -> State:
    """A state read back from a record; ``ValueError`` for anything malformed."""
    if not isinstance(raw, Mapping):
        raise ValueError("a state must be an object")
    kind = raw.get("kind")
    if kind == "missing":
        return MISSING
    if kind == "file":
        sha, size, mode = raw.get("sha256"), raw.get("size"), raw.get("mode", 0o644)
        if not (
            isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)
        ):
            raise ValueError("a file state needs a SHA-256 digest")
        if not isinstance(size, int) or size < 0 or not isinstance(mode, int):
            raise ValueError("a file state needs a size and a mode")
        return FileState(sha, size, mode & 0o7777)
    if kind == "folder":
        children = raw.get("children")
        if not isinstance(children, Mapping):
            raise ValueError("a folder state needs children")
        decoded = {}
        for stored, child in children.items():
            if version == 1:
                check_name_bytes(os.fsencode(stored), stored)
                name = stored
            else:
                name = decode_name(stored)
            decoded[name] = state_from_json(child, version)
        return FolderState(tuple((name, decoded[name]) for name in sorted(decoded)))
    if kind == "link":
        target = raw.get("target")
        if not isinstance(target, str):
            raise ValueError("a link state needs a target")
        return LinkState(target if version == 1 else os.fsdecode(unquote_to_bytes(target)))
    raise ValueError(f"unknown state kind {kind!r}")
