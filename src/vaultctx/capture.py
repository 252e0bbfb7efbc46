"""``capture``: a new note in the vault's inbox with proper front matter, indexed at once.

Captures land in the inbox as ``status: draft`` because they are unsorted, pending triage. The
inbox is ``inbox_folder`` from ``vaultctx.toml`` when set, else the folder the vault already uses
(``00-inbox/`` or ``Inbox/``), else a new ``00-inbox/``. A capture never overwrites anything: the
file is created exclusively, and a taken name becomes ``Title 2.md``, ``Title 3.md``, … The file
name is made safe for every OS and for Obsidian links, whatever the title holds.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.config import Config
    from vaultctx.embed.base import Embedder

INBOX_FOLDER = "00-inbox"
# Inbox folders a vault may already have, looked for in this order when none is configured.
EXISTING_INBOXES = (INBOX_FOLDER, "Inbox")
NOTE_TYPES = ("note", "signal", "project", "moc", "daily")
MAX_STEM_BYTES = 120  # far below every file system's 255-byte name limit, with room for " 99.md"
MAX_DERIVED_TITLE = 60
MAX_NAME_ATTEMPTS = 1000

# Forbidden on Windows (<>:"/\|?*), or breaking Obsidian links ([[a#b^c|d]]), or control characters.
_UNSAFE = re.compile(r'[<>:"/\\|?*#^\[\]\x00-\x1f\x7f]')
_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"COM{i}" for i in range(1, 10)]
    + [f"LPT{i}" for i in range(1, 10)]
)


class _PlainDumper(yaml.SafeDumper):
    """No ``&id001`` anchors when two keys hold the same value (created and updated do)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


class CaptureError(VaultctxError):
    """The capture cannot be written: the message says why, the suggestion what to change."""


@dataclass(frozen=True)
class CaptureResult:
    """The new note (``path`` is vault-relative, with ``/``) and whether it is searchable yet."""

    path: str
    file: Path
    title: str
    indexed: bool
    notices: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "file": str(self.file),
            "title": self.title,
            "indexed": self.indexed,
            "notices": self.notices,
        }


def derive_title(text: str) -> str:
    """The first line's words (without a heading's ``#``), cut at a word near 60 characters."""
    for line in text.splitlines():
        words = line.strip().lstrip("#").split()
        if words:
            title = " ".join(words)
            if len(title) <= MAX_DERIVED_TITLE:
                return title
            cut = title[:MAX_DERIVED_TITLE].rsplit(" ", 1)[0]
            return cut.rstrip(" ,.;:-")
    return ""


def safe_file_stem(title: str) -> str:
    """A file name stem that is valid everywhere and keeps ``[[links]]`` to it working.

    Unsafe characters become spaces; leading dots (hidden files) and trailing dots or spaces
    (invalid on Windows) go; Windows device names (``CON``, ``com1``…) get an underscore.
    """
    stem = " ".join(_UNSAFE.sub(" ", title).split()).strip(" .")
    while len(stem.encode("utf-8")) > MAX_STEM_BYTES:
        stem = stem[:-1]
    stem = stem.rstrip(" .")
    if stem.split(".")[0].upper() in _WINDOWS_RESERVED:
        stem += "_"
    return stem


def parse_tags(raw: str | Sequence[str] | None) -> list[str]:
    """``"a, #b,c d"`` → ``["a", "b", "c-d"]``: Obsidian tags have no ``#`` prefix or spaces."""
    if raw is None:
        return []
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    tags: list[str] = []
    for item in items:
        tag = "-".join(item.strip().lstrip("#").split())
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def note_markdown(
    text: str,
    *,
    title: str,
    note_type: str = "note",
    domain: str | None = None,
    tags: Sequence[str] = (),
    source: str | None = None,
    today: dt.date | None = None,
) -> str:
    """The note's file content: YAML front matter (the vault's usual keys), then the text."""
    day = today or dt.date.today()
    front_matter: dict[str, Any] = {"title": title, "type": note_type}
    if domain:
        front_matter["domain"] = domain
    if tags:
        front_matter["tags"] = list(tags)
    front_matter["created"] = day
    front_matter["updated"] = day
    if source:
        front_matter["source"] = source
    front_matter["status"] = "draft"
    header = yaml.dump(
        front_matter, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=1000
    )
    return f"---\n{header}---\n{text.strip()}\n"


def write_capture(
    vault_root: Path,
    text: str,
    *,
    title: str | None = None,
    note_type: str = "note",
    domain: str | None = None,
    tags: Sequence[str] = (),
    source: str | None = None,
    today: dt.date | None = None,
    inbox: str | None = None,
) -> tuple[str, Path, str]:
    """Create the note; returns (vault-relative path, file, title). Never replaces a file.

    ``inbox`` is the ``inbox_folder`` setting (see ``inbox_folder``). The inbox may be a symbolic
    link (a synced vault, a cloned repo): the note is written only where the link leads inside
    the vault, and the path returned is that real location.
    """
    if not text.strip():
        raise CaptureError(
            "nothing to capture: the text is empty", "give the text to save, or - for stdin"
        )
    if note_type not in NOTE_TYPES:
        raise CaptureError(
            f"unknown note type {note_type!r}", f"use one of: {', '.join(NOTE_TYPES)}"
        )
    chosen = secret_free_title(title or derive_title(text))
    stem = safe_file_stem(chosen) or f"Capture {dt.datetime.now():%Y-%m-%d %H%M%S}"
    chosen = chosen or stem
    folder, relative_folder = _inbox(vault_root, inbox_folder(vault_root, inbox))
    content = note_markdown(
        text,
        title=chosen,
        note_type=note_type,
        domain=domain,
        tags=tags,
        source=source,
        today=today,
    )
    for attempt in range(1, MAX_NAME_ATTEMPTS + 1):
        name = f"{stem}.md" if attempt == 1 else f"{stem} {attempt}.md"
        file = folder / name
        try:
            _create_exclusively(file, content)
        except FileExistsError:
            continue
        except OSError as exc:
            raise CaptureError(
                f"cannot write {file} ({exc.strerror})", f"make {folder} writable"
            ) from exc
        return f"{relative_folder}/{name}", file, chosen
    raise CaptureError(
        f"{MAX_NAME_ATTEMPTS} notes named {stem!r} already exist in {folder}",
        "give the capture another title",
    )


def secret_free_title(title: str) -> str:
    """The title with credentials replaced by the scrubber's markers: it becomes the file name and
    front matter, which sync tools, file listings and the index all see."""
    from vaultctx.scrub import scrub_secrets

    return scrub_secrets(" ".join(title.split())).text


def inbox_folder(vault_root: Path, setting: str | None) -> str:
    """The vault-relative folder captures go to: the setting (already checked to stay inside the
    vault, see ``config.vault_relative_folder``), else an inbox the vault has, else 00-inbox."""
    if setting:
        return setting
    for name in EXISTING_INBOXES:
        if (vault_root / name).is_dir():
            return name
    return INBOX_FOLDER


def _inbox(vault_root: Path, relative: str) -> tuple[Path, str]:
    """(inbox folder, its vault-relative path), created if need be, with symlinks resolved.

    Made one folder at a time, each resolved and checked to be inside the vault before the next
    is made in it: a link planted at any level never receives a note, nor a folder beyond it.
    """
    root = Path(os.path.realpath(vault_root))
    folder = root
    for part in relative.split("/"):
        wanted = folder / part
        try:
            wanted.mkdir(exist_ok=True)
        except FileExistsError:
            pass  # a dangling symlink or a file: judged below
        except OSError as exc:
            raise CaptureError(
                f"cannot create {wanted} ({exc.strerror})", "make the vault folder writable"
            ) from exc
        folder = Path(os.path.realpath(wanted))
        if root not in folder.parents:
            raise CaptureError(
                f"{wanted} leads outside the vault (to {folder}); capture writes only inside "
                "the vault",
                "replace the link with a real folder",
            )
        if not folder.is_dir():
            raise CaptureError(f"{wanted} is not a folder", "move it away so captures can go there")
    return folder, folder.relative_to(root).as_posix()


def _create_exclusively(file: Path, content: str) -> None:
    """Created here or not at all (a note written meanwhile is never replaced), and never through
    a symbolic link planted at the name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(file, flags, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(content)


def _is_ignored(config: Config, path: str) -> bool:
    from vaultctx.vault.scanner import is_served_path, load_ignore_rules

    rules, _ = load_ignore_rules(config.vault, config.settings.ignore)
    return not is_served_path(path, rules)


def capture(
    config: Config,
    embedder: Embedder,
    text: str,
    *,
    title: str | None = None,
    note_type: str = "note",
    domain: str | None = None,
    tags: Sequence[str] = (),
    source: str | None = None,
    inbox: str | None = None,
) -> CaptureResult:
    """Write the note, then run the indexer's fast pass so the next search finds it.

    ``inbox`` (vault-relative, already checked) overrides ``inbox_folder``: signals go to
    ``[signals] inbox`` when that is set.

    When another indexer (``vaultctx watch``, ``serve --http --watch``) holds the index, the note
    is left to it: it sees the new file within seconds. ``indexed`` is read back from the index,
    never assumed.
    """
    from vaultctx.index.indexer import Indexer, IndexerBusyError
    from vaultctx.index.lookups import file_is_indexed

    path, file, chosen = write_capture(
        config.vault,
        text,
        title=title,
        note_type=note_type,
        domain=domain,
        tags=tags,
        source=source,
        inbox=inbox or config.settings.inbox_folder,
    )
    folder = path.rsplit("/", 1)[0]
    if _is_ignored(config, path):
        notice = f"{folder}/ is excluded by the ignore rules: saved, but not searchable"
        return CaptureResult(path, file, chosen, False, [notice])
    notices: list[str] = []
    try:
        # The static engine only: the fast pass never needs the transformer model loaded.
        report = Indexer(config, embedder).run(fast=True)
    except IndexerBusyError:
        notices.append(
            "another vaultctx process is updating the index and will pick the note up "
            "(if none is watching the vault, run `vaultctx index`)"
        )
        return CaptureResult(path, file, chosen, False, notices)
    skipped = [s["reason"] for s in report.skipped if s["path"] == path]  # e.g. too big
    indexed = file_is_indexed(config.db, path)
    if not indexed:
        notices.append(f"not indexed: {skipped[0] if skipped else 'the indexer did not take it'}")
    return CaptureResult(path, file, chosen, indexed, notices)


__all__ = [
    "INBOX_FOLDER",
    "CaptureError",
    "CaptureResult",
    "capture",
    "derive_title",
    "inbox_folder",
    "note_markdown",
    "parse_tags",
    "safe_file_stem",
    "write_capture",
]
