"""The notes the Obsidian plugin reports opened, with when, for the review queue
(docs/second-brain.md#reports-without-a-model).

Obsidian's own ``workspace.json`` lists only the last ten or so files and carries no times
(brain/obsidian_opens.py), so the plugin reports each open itself (``POST
/vaultctx/obsidian/opens``). The record lives beside the review queue's history in the user state
dir (``<state>/vaultctx/brain/<vault>-opens.json``), never in the vault: a file of the user's
own that needs no ledger. It is private (0600 in a 0700 folder) and bounded: the last
``OPENS_PER_PATH`` opens of at most ``MAX_PATHS`` notes, the notes opened longest ago dropped
first.

A report is hostile input, whoever sends it: a path counts only when it is a markdown file that
is there now at exactly that vault path (no ``..``, nothing absolute, no symbolic link on the
way), not a control file and not excluded by the vault's ignore rules, so an ignored note's name
is never written down. A time is clamped to now and must be within a year. The record itself is
read without following a link and only up to ``MAX_FILE_BYTES``; one that cannot be read is
started afresh, since losing it only makes the queue go by Obsidian's list and changes again.
"""

from __future__ import annotations

import json
import math
import os
import stat
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import platformdirs

from vaultctx.config import APP_NAME, default_db_path
from vaultctx.errors import VaultctxError
from vaultctx.private_log import FILE_MODE, private_folder
from vaultctx.vault.durable import replace_with_staged, sync_folder
from vaultctx.vault.private_paths import private_reason
from vaultctx.vault.scanner import IgnoreRules

OPENS_PER_PATH = 10
MAX_PATHS = 5_000
MAX_PATH_CHARS = 1_024
MAX_REPORTED = 50  # opens in one report: the plugin sends one or a few at a time
MAX_AGE_SECONDS = 365 * 86_400.0
# MAX_PATHS paths of MAX_PATH_CHARS with their times, JSON-escaped, fit well within this.
MAX_FILE_BYTES = 64 * 1024 * 1024
_VERSION = 1
_RECORDING = threading.Lock()  # one server's reports, read, added to and written in turn


@dataclass
class ReportedOpens:
    """Path → its recorded opens (epoch seconds, newest first), and why the file was not read."""

    opens: dict[str, list[float]] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    def last_opened(self) -> dict[str, float]:
        return {path: times[0] for path, times in self.opens.items() if times}


@dataclass(frozen=True)
class RecordedReport:
    recorded: int
    refused: int


def opens_file(vault: Path) -> Path:
    name = default_db_path(vault).stem
    return Path(platformdirs.user_state_dir(APP_NAME)) / "brain" / f"{name}-opens.json"


def load_reported_opens(path: Path) -> ReportedOpens:
    """The record at ``path``: empty when there is none, empty with a notice when it cannot be
    read as this format (a link, not a regular file, too large, damaged)."""
    try:
        raw = _read_private(path)
    except FileNotFoundError:
        return ReportedOpens()
    except (OSError, ValueError) as exc:
        return ReportedOpens(notices=[_reset(path, str(exc))])
    try:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError("not this format")
        entries = data["opens"]
        if not isinstance(entries, dict):
            raise ValueError("not this format")
        opens = {str(p): _times(t) for p, t in list(entries.items())[: MAX_PATHS * 2]}
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        return ReportedOpens(notices=[_reset(path, str(exc) or type(exc).__name__)])
    return ReportedOpens(_bounded(opens))


def record_reported_opens(
    vault: Path, rules: IgnoreRules, reported: object, now: float, path: Path | None = None
) -> RecordedReport:
    """Add the opens in ``reported`` (a list of ``{"path", "at"}``, ``at`` in milliseconds as
    JavaScript's ``Date.now()``) that name a note of ``vault`` to the record (``opens_file``
    unless ``path``); the others are counted as refused, never written."""
    entries = _entries(reported)
    root = Path(os.path.realpath(vault))
    valid: list[tuple[str, float]] = []
    for entry in entries:
        note, when = _note_path(root, rules, entry), _when(entry, now)
        if note is not None and when is not None:
            valid.append((note, when))
    if valid:
        where = path or opens_file(vault)
        with _RECORDING:
            record = load_reported_opens(where)
            for note, when in valid:
                record.opens[note] = [when, *record.opens.get(note, [])]
            save_reported_opens(where, record.opens)
    return RecordedReport(len(valid), len(entries) - len(valid))


def save_reported_opens(path: Path, opens: Mapping[str, list[float]]) -> None:
    """The bounded record, staged and renamed into place: a link at ``path`` is replaced, never
    followed; the folder is made (or tightened to) 0700 and the file is 0600."""
    payload = {"version": _VERSION, "opens": _bounded(opens)}
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"
    folder = private_folder(path.parent) if os.name == "posix" else path.parent
    folder.mkdir(parents=True, exist_ok=True)  # Windows: no modes; the user's own profile
    replace_with_staged(path, text.encode("utf-8"), FILE_MODE, prefix=".opens.", suffix=".tmp")
    sync_folder(folder)


def forget_reported_opens(vault: Path) -> bool:
    """Delete the vault's record (a link in its place is removed, not followed); whether there
    was one."""
    try:
        os.unlink(opens_file(vault))
    except FileNotFoundError:
        return False
    return True


def _entries(reported: object) -> list[object]:
    if not isinstance(reported, list) or len(reported) > MAX_REPORTED:
        raise VaultctxError(
            f"`opens` must be a list of at most {MAX_REPORTED} opened notes",
            "update the vaultctx plugin",
        )
    return list(reported)


def _note_path(root: Path, rules: IgnoreRules, entry: object) -> str | None:
    """The entry's vault path when it names a markdown note there now, by no link, that the
    ignore rules leave alone; else None."""
    name = entry.get("path") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name or len(name) > MAX_PATH_CHARS or "\0" in name:
        return None
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or "\\" in name or pure.as_posix() != name:
        return None
    if pure.suffix.casefold() != ".md" or private_reason(name, rules, folder=False) is not None:
        return None
    where = root.joinpath(*pure.parts)
    if os.path.realpath(where) != str(where):
        return None  # a link on the way, or the name is not spelled as on disk
    try:
        return name if stat.S_ISREG(os.lstat(where).st_mode) else None
    except OSError:
        return None


def _when(entry: object, now: float) -> float | None:
    at = entry.get("at") if isinstance(entry, dict) else None
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        return None
    when = min(at / 1000.0, now)
    return when if when >= now - MAX_AGE_SECONDS else None


def _times(value: object) -> list[float]:
    if not isinstance(value, list):
        raise ValueError("not this format")
    times = [float(t) for t in value[: OPENS_PER_PATH * 2]]
    return sorted((t for t in times if math.isfinite(t)), reverse=True)


def _bounded(opens: Mapping[str, Iterable[float]]) -> dict[str, list[float]]:
    """At most ``OPENS_PER_PATH`` newest times for each of the ``MAX_PATHS`` paths opened last."""
    kept = {p: sorted(t, reverse=True)[:OPENS_PER_PATH] for p, t in opens.items()}
    newest = sorted((p for p in kept if kept[p]), key=lambda p: (-kept[p][0], p))[:MAX_PATHS]
    return {p: kept[p] for p in sorted(newest)}


def _read_private(path: Path) -> bytes:
    """The file's bytes: never through a link, only a regular file, at most MAX_FILE_BYTES."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise ValueError("it is a symbolic link") from exc
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        raw = handle.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"over {MAX_FILE_BYTES:,} bytes")
    return raw


def _reset(path: Path, problem: str) -> str:
    return (
        f"the record of notes opened in Obsidian {path} could not be read ({problem}); it starts "
        "afresh, and the review queue goes by Obsidian's recent files and changes meanwhile"
    )
