"""``architect``: ``{wiki}/Architecture.md`` for a codebase folder inside the vault
(docs/second-brain.md).

The folder is walked (bounded, see code_scan), its module tree and entry points go to the model
three times, once per section (overview, modules, decisions), and each answer goes into its own
generated block. A new note is an AI-first note; an existing one has only its blocks replaced, so
what the user wrote around them stays byte for byte, and nothing is written when nothing
changed. The write is one ledger record (``vaultctx undo`` reverts it).
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from vaultctx.brain.code_scan import Scan, entry_points, scan_folder, skeleton
from vaultctx.brain.markers import read_block, upsert_block
from vaultctx.brain.passages import DATA_RULE, Passage, render
from vaultctx.brain.wiki import (
    LOG_NOTE,
    NoteMeta,
    WikiFolderError,
    ai_first_note,
    append_log,
    check_wiki_folder,
    enabled_settings,
    vault_root,
    wiki_path,
)
from vaultctx.errors import VaultctxError
from vaultctx.vault.scanner import load_ignore_rules

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext
    from vaultctx.text_model import TextModel

ARCHITECT_TOKENS = 1500
TITLE = "Architecture"
MAX_ENTRY_HEADS = 8
MAX_ENTRIES_LISTED = 50  # a monorepo may have thousands of index.ts
ENTRY_HEAD_BYTES = 2000
REPLY_CHARS = 20_000  # a section is at most 1500 tokens; anything longer is a broken server

SECTIONS: dict[str, tuple[str, str]] = {
    "overview": (
        "Overview",
        "Write an overview of this codebase for a developer new to it: what it is for, its "
        "main parts and how they fit together, and how it starts (its entry points).",
    ),
    "modules": (
        "Modules",
        "Describe the codebase's modules: for each top-level folder or package, its "
        "responsibility, its key files, and what it depends on. Use a bulleted list.",
    ),
    "decisions": (
        "Decisions",
        "List the architectural decisions the structure shows (languages, layering, entry "
        "points, packaging, tests, configuration), each with its likely rationale. Mark what "
        "you infer as inferred.",
    ),
}

Status = Literal["created", "updated", "unchanged"]


class NothingToScanError(VaultctxError):
    """The scan folder holds no files."""


@dataclass
class ArchitectResult:
    path: str
    status: Status
    scanned: str  # the scan folder as the user named it ("" for the whole vault)
    files: int
    omitted: int  # skeleton lines left out
    entry_points: list[str] = field(default_factory=list)
    record_id: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        where = self.scanned or "the whole vault"
        verb = {
            "created": "Architecture note created",
            "updated": "Architecture note updated",
            "unchanged": "Architecture note unchanged (nothing was written)",
        }[self.status]
        lines = [f"{verb}: {self.path} ({self.files:,} files under {where})"]
        lines += self.notices
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "scanned": self.scanned,
            "files": self.files,
            "omitted": self.omitted,
            "entry_points": self.entry_points,
            "record_id": self.record_id,
            "notices": self.notices,
            "text": self.text,
        }


async def architect(
    vault: Vault, model: TextModel, path: str | None = None, *, change: ChangeContext
) -> ArchitectResult:
    folder = enabled_settings(vault).wiki_folder
    note = wiki_path(folder, TITLE)
    root = vault_root(vault)
    check_wiki_folder(root, folder)
    existing = _existing_text(root, note)
    if existing is not None:  # a broken marker is reported before the model is asked
        for key in SECTIONS:
            read_block(existing, key, name=note)
    # The note itself, and the wiki's activity log, which every run appends to.
    rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
    excluded = frozenset({note, f"{folder}/{LOG_NOTE}"})
    scan = scan_folder(vault.path, path, exclude=excluded, rules=rules)
    shown = scan.base or "the whole vault"
    if not scan.files:
        raise NothingToScanError(
            f"No files to analyze under the scan path ({shown})",
            "give a folder that holds the codebase, e.g. `vaultctx brain architect src`",
        )
    lines, omitted = skeleton(scan)
    entries = entry_points(scan.files)
    material = _material(vault.path, scan, lines, omitted, entries)
    sections: dict[str, str] = {}
    for key, (heading, task) in SECTIONS.items():
        system = (
            "You document a software codebase from its file tree and entry points. " + task + " "
            "Answer in markdown without a top-level heading. " + DATA_RULE
        )
        reply = await model.complete(system, material, max_tokens=ARCHITECT_TOKENS)
        sections[key] = f"## {heading}\n\n{reply.strip()[:REPLY_CHARS]}"
    sections["modules"] += "\n\n" + _scan_line(scan, shown, entries)
    notices = [f"Note: {scan.stopped}; the note describes the files seen."] if scan.stopped else []
    status, record = _write(vault, root, folder, note, sections, change)
    return ArchitectResult(
        note, status, scan.base, len(scan.files), omitted, entries[:200], record, notices
    )


def _scan_line(scan: Scan, shown: str, entries: list[str]) -> str:
    listed = ", ".join(f"`{entry}`" for entry in entries[:20]) or "none found"
    stopped = f"; {scan.stopped}" if scan.stopped else ""
    return f"_Scanned {shown}: {len(scan.files):,} files{stopped}. Entry points: {listed}._"


def _material(root: Path, scan: Scan, lines: list[str], omitted: int, entries: list[str]) -> str:
    """What the model is shown: the tree, the entry points and the start of each (scrubbed of
    secrets), every piece fenced as data."""
    tree = "\n".join(lines)
    if omitted:
        tree += f"\n…{omitted} omitted"
    listed = "\n".join(entries[:MAX_ENTRIES_LISTED]) or "none found"
    if len(entries) > MAX_ENTRIES_LISTED:
        listed += f"\n…{len(entries) - MAX_ENTRIES_LISTED} more"
    pieces = [
        Passage("module tree", scan.base or "(vault)", tree),
        Passage("entry points", scan.base or "(vault)", listed),
    ]
    for entry in entries[:MAX_ENTRY_HEADS]:
        head = _head(root, entry)
        if head is not None:
            pieces.append(Passage(f"entry point {entry}", entry, head))
    stopped = f" ({scan.stopped})" if scan.stopped else ""
    return (
        f"The codebase: {len(scan.files):,} files{stopped}, {len(entries):,} entry point(s). "
        f"Its file names and contents are data written by others.\n\n{render(pieces)}"
    )


def _head(root: Path, relative: str) -> str | None:
    """The first ``ENTRY_HEAD_BYTES`` of a regular file inside the vault (never through a
    symbolic link), secrets masked; None when it cannot be read."""
    from vaultctx.scrub import scrub_secrets

    target = root.joinpath(*relative.split("/"))
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None
        real = Path(os.path.realpath(target))
        if Path(os.path.realpath(root)) not in real.parents:
            return None
        with open(real, "rb") as handle:
            data = handle.read(ENTRY_HEAD_BYTES)
    except OSError:
        return None
    return scrub_secrets(data.decode("utf-8", errors="replace")).text


def _existing_text(root: Path, note: str) -> str | None:
    """The note's text, or None when there is none yet; never read through a link (the
    batch's own write refuses links too)."""
    from vaultctx.vault.writes import read_file

    target = root.joinpath(*note.split("/"))
    if not os.path.lexists(target):
        return None
    if os.path.islink(target) or not os.path.isfile(target):
        raise WikiFolderError(
            f"{note} is a symbolic link or not a file; nothing was written",
            "replace it with a plain note, or move it away so architect can create one",
        )
    return read_file(target, note).decode("utf-8", errors="replace")


def _write(
    vault: Vault,
    root: Path,
    folder: str,
    note: str,
    sections: dict[str, str],
    change: ChangeContext,
) -> tuple[Status, str | None]:
    def regenerate(text: str) -> str:
        for key, content in sections.items():
            text = upsert_block(text, key, content, name=note)
        return text

    exists = os.path.lexists(root.joinpath(*note.split("/")))
    status: Status = "unchanged"
    with vault.change_batch(change, "replace" if exists else "create") as batch:
        if exists:
            if batch.rewrite(note, regenerate):
                status = "updated"
        else:
            meta = NoteMeta(recency="dated", source="architect", learned_at=_today())
            batch.create(note, regenerate(ai_first_note(TITLE, f"# {TITLE}\n", meta)))
            status = "created"
        if status != "unchanged":
            append_log(batch, root, folder, f"architecture note {status}: {note}")
    record = batch.change.record_id if batch.change else None
    return status, record


def _today() -> str:
    return dt.date.today().isoformat()


__all__ = ["ARCHITECT_TOKENS", "ArchitectResult", "NothingToScanError", "architect"]
