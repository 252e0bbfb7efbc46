"""To-do archive cleanup (docs/organize.md#archive-cleanup): archived to-do notes older than
``[todo] archive_clean_days`` (90 by default) go to the vault's ``.trash/``, all in one ledger
record, so one ``vaultctx undo`` brings every one back.

A note's age is the day in its name (``2026-08-01 To-Do.md``), else its modification time: the
day a to-do is for does not change when it is moved or copied, its file times do. Only regular
files under the archive folder are taken (never a link, nor anything beside the folder); folders
emptied by the cleanup stay, so undo has them to return the notes to.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from vaultctx.api import Vault
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.organize.todo import load_todo_settings, note_date


@dataclass(frozen=True)
class Cleanup:
    folder: str
    days: int
    old: list[str]  # vault-relative, sorted
    dry_run: bool
    record_id: str | None = None
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "archive_folder": self.folder,
            "older_than_days": self.days,
            "trashed": [] if self.dry_run else self.old,
            "would_trash": self.old if self.dry_run else [],
            "record_id": self.record_id,
            "dry_run": self.dry_run,
            "notices": self.notices,
        }


def note_day(path: Path, name: str) -> date:
    """The day an archived note is for: from its name, else its modification time."""
    return note_date(name) or datetime.fromtimestamp(os.lstat(path).st_mtime).date()


def old_archived(root: Path, folder: str, cutoff: date) -> list[str]:
    """Regular files under ``root/folder`` (not following links, hidden names skipped) whose
    day is before ``cutoff``."""
    base = root / folder
    if os.path.islink(base) or not base.is_dir():
        return []
    found = []
    for current, folders, files in os.walk(base, followlinks=False):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            path = Path(current, name)
            if name.startswith(".") or not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            if note_day(path, name) < cutoff:
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def clean_archive(vault: Vault, today: date, *, dry_run: bool = False) -> Cleanup:
    """Move the archive's notes older than ``archive_clean_days`` to ``.trash/``."""
    settings = load_todo_settings(vault.config)
    folder = settings.archive_folder
    root = Path(os.path.realpath(vault.path))
    if os.path.islink(root / folder):
        raise VaultctxError(
            f"the to-do archive folder {folder} is a symbolic link; nothing was cleaned",
            "replace it with a real folder, or set [todo] archive_folder to another one",
        )
    days = settings.archive_clean_days
    old = old_archived(root, folder, today - timedelta(days=days))
    if dry_run or not old:
        return Cleanup(folder, days, old, dry_run)
    label = f"todo archive cleanup: {len(old)} note(s) older than {days} days to .trash"
    with vault.change_batch(ChangeContext(label, source="cli"), "trash") as batch:
        for path in old:
            batch.trash(path)
    change = batch.change
    assert change is not None
    return Cleanup(folder, days, old, False, change.record_id, list(change.notices))
