"""What ``hook context`` already injected in a Claude Code session, so it is not repeated.

The context hook fires on every prompt and before every Edit, Write and Bash call; a session of
forty commands would otherwise carry the same notes forty times. An excerpt already injected in
the session is skipped for ``REMEMBER_SECONDS``; after that it may be injected again, because
Claude Code compacts long conversations and earlier context may be gone.

One small JSON file per session, beside the index (``<db>.hook-sessions/``), named by a hash of
the session id. Losing it only means an excerpt is injected twice, so every error is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path

from vaultctx.atomic_write import write_atomically
from vaultctx.hooks.context import Excerpt

REMEMBER_SECONDS = 30 * 60
FORGET_FILES_AFTER_SECONDS = 2 * 24 * 3600
SESSIONS_SUFFIX = ".hook-sessions"


def sessions_folder(db: Path) -> Path:
    return Path(f"{db}{SESSIONS_SUFFIX}")


def _key(excerpt: Excerpt) -> str:
    return hashlib.sha256(f"{excerpt.citation}\0{excerpt.text}".encode()).hexdigest()[:20]


def _file(db: Path, session_id: str) -> Path:
    name = hashlib.sha256(session_id.encode()).hexdigest()[:24]
    return sessions_folder(db) / f"{name}.json"


def _load(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))}


def not_yet_injected(
    db: Path, session_id: str | None, excerpts: Sequence[Excerpt], now: float | None = None
) -> list[Excerpt]:
    """The excerpts this session has not been given recently; all of them without a session."""
    if not session_id:
        return list(excerpts)
    moment = time.time() if now is None else now
    seen = _load(_file(db, session_id))
    return [e for e in excerpts if moment - seen.get(_key(e), float("-inf")) >= REMEMBER_SECONDS]


def remember(
    db: Path, session_id: str | None, excerpts: Sequence[Excerpt], now: float | None = None
) -> None:
    """Record ``excerpts`` as injected now; never raises."""
    if not session_id or not excerpts:
        return
    moment = time.time() if now is None else now
    path = _file(db, session_id)
    with contextlib.suppress(OSError):
        fresh = not path.exists()
        seen = {k: t for k, t in _load(path).items() if moment - t < REMEMBER_SECONDS}
        seen.update({_key(e): moment for e in excerpts})
        write_atomically(path, json.dumps(seen), mode=0o600)
        if fresh:
            _forget_old_sessions(path.parent, moment)


def _forget_old_sessions(folder: Path, now: float) -> None:
    """Once per new session: delete the files of sessions idle for days."""
    for old in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if now - old.stat().st_mtime > FORGET_FILES_AFTER_SECONDS:
                old.unlink()
