"""The signals waiting in the inbox: notes directly in the inbox folder whose front matter says
``type: signal`` and that carry no ``triage`` key yet.

Read from the disk, not the index, so a file dropped in a moment ago counts. A note that looks
like a signal but whose front matter cannot be read is reported and left alone: its triage would
have to rewrite front matter that nobody can parse.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from os import scandir
from pathlib import Path
from typing import Any

from vaultctx.vault.note import parse_note

TRIAGE_KEY = "triage"
MAX_SIGNAL_BYTES = 1_000_000  # a signal is an item to read, not a book
MAX_SIGNALS_PER_RUN = 500
# In front matter that does not parse: does it at least say it is a signal?
_LOOKS_LIKE_SIGNAL = re.compile(r"^type:[ \t]*['\"]?signal['\"]?[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class Signal:
    path: str  # vault-relative, with "/"
    title: str
    body: str  # the text after the front matter
    front_matter: dict[str, Any]
    tags: list[str]
    source: str | None
    declared_domain: object = None


@dataclass
class InboxScan:
    signals: list[Signal] = field(default_factory=list)
    triaged: int = 0  # signals that already carry a triage key
    skipped: list[str] = field(default_factory=list)  # "path: why"
    notices: list[str] = field(default_factory=list)


def scan_inbox(vault_root: Path, inbox: str) -> InboxScan:
    """Every untriaged signal directly in ``inbox`` (vault-relative), by name."""
    scan = InboxScan()
    root = Path(os.path.realpath(vault_root))
    folder = root / inbox
    if not folder.is_dir():
        return scan
    real_folder = Path(os.path.realpath(folder))
    if real_folder != root and root not in real_folder.parents:
        scan.skipped.append(f"{inbox}/: leads outside the vault; nothing in it was read")
        return scan
    try:
        names = sorted(entry.name for entry in scandir(real_folder) if entry.name.endswith(".md"))
    except OSError as exc:
        scan.skipped.append(f"{inbox}/: cannot be read ({exc.strerror}); no signal was triaged")
        return scan
    prefix = real_folder.relative_to(root).as_posix()
    for name in names:
        relative = f"{prefix}/{name}" if prefix != "." else name
        file = real_folder / name
        if file.is_symlink() or not file.is_file():
            continue
        try:
            size = file.stat().st_size
        except OSError:
            continue  # gone since the folder was listed
        if size > MAX_SIGNAL_BYTES:
            if _says_signal(file):
                scan.skipped.append(
                    f"{relative}: larger than {MAX_SIGNAL_BYTES // 1000} KB; not triaged"
                )
            continue
        try:
            text = file.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # not text: not a note, so not a signal either
        except OSError as exc:
            scan.skipped.append(f"{relative}: cannot be read ({exc.strerror})")
            continue
        # LF, as the indexer reads it; without a byte order mark a Windows editor may have added.
        note = parse_note(relative, text.removeprefix("\ufeff").replace("\r\n", "\n"))
        if note.problems:
            if _LOOKS_LIKE_SIGNAL.search(text[:65536]):
                scan.skipped.append(f"{relative}: {note.problems[0]}; fix it to triage this signal")
            continue
        if str(note.front_matter.get("type", "")).strip().lower() != "signal":
            continue
        if TRIAGE_KEY in note.front_matter:
            scan.triaged += 1
            continue
        if len(scan.signals) == MAX_SIGNALS_PER_RUN:
            scan.notices.append(
                f"more than {MAX_SIGNALS_PER_RUN} new signals: the rest wait for the next run"
            )
            break
        source = note.front_matter.get("source")
        scan.signals.append(
            Signal(
                path=relative,
                title=note.title,
                body=note.body,
                front_matter=note.front_matter,
                tags=note.tags,
                source=source.strip() if isinstance(source, str) else None,
                declared_domain=note.front_matter.get("domain"),
            )
        )
    return scan


def _says_signal(file: Path) -> bool:
    try:
        with file.open("rb") as handle:
            head = handle.read(65536).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(_LOOKS_LIKE_SIGNAL.search(head))


__all__ = ["MAX_SIGNAL_BYTES", "TRIAGE_KEY", "InboxScan", "Signal", "scan_inbox"]
