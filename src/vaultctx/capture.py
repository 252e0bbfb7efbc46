"""``capture``: a new note in the vault's inbox with proper front matter, indexed at once.

Captures land in the inbox as ``status: draft`` because they are unsorted, pending triage. The
inbox is ``inbox_folder`` from ``vaultctx.toml`` when set, else the folder the vault already uses
(``00-inbox/`` or ``Inbox/``), else a new ``00-inbox/``. A capture never overwrites anything: the
file is created exclusively, and a taken name becomes ``Title 2.md``, ``Title 3.md``, … The file
name is made safe for every OS and for Obsidian links, whatever the title holds.

A capture is a change to the vault like any other: it goes through ``Vault.change_batch``, so it
is confined (no link, nothing the ignore rules exclude), recorded in the ledger, and
``vaultctx undo`` removes it (and the inbox folder, when the capture created it).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import yaml

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from vaultctx.config import Config
    from vaultctx.embed.base import Embedder
    from vaultctx.ledger.batch import ChangeBatch
    from vaultctx.ledger.context import Change, ChangeContext

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


class ChangingVault(Protocol):
    """What capture needs of ``vaultctx.api.Vault`` (which calls it: an import of it here would
    be a cycle)."""

    config: Config

    @property
    def path(self) -> Path: ...

    def embedder(self) -> Embedder: ...

    def change_batch(
        self, change: ChangeContext, kind: str
    ) -> AbstractContextManager[ChangeBatch]: ...


class CaptureError(VaultctxError):
    """The capture cannot be written: the message says why, the suggestion what to change."""


@dataclass(frozen=True)
class CaptureDraft:
    """A capture before it is written: the text and what its front matter should say.

    ``inbox`` (vault-relative, already checked) overrides the ``inbox_folder`` setting: signals
    go to ``[signals] inbox`` when that is set.
    """

    text: str
    title: str | None = None
    note_type: str = "note"
    domain: str | None = None
    tags: Sequence[str] = ()
    source: str | None = None
    inbox: str | None = None


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
    vault: ChangingVault, draft: CaptureDraft, *, today: dt.date | None = None
) -> tuple[str, Path, str, Change]:
    """Create the note as one ledger record (``vaultctx undo`` removes it); returns
    (vault-relative path, file, title, the recorded change). Never replaces a file.

    ``draft.inbox`` is the ``inbox_folder`` setting (see ``inbox_folder``). The inbox may be a
    symbolic link (a synced vault, a cloned repo): the note is written only where the link leads
    inside the vault, and the path returned is that real location.
    """
    from vaultctx.ledger.context import ChangeContext as Context
    from vaultctx.vault.writes import NoteChangeError, vault_root

    if not draft.text.strip():
        raise CaptureError(
            "nothing to capture: the text is empty", "give the text to save, or - for stdin"
        )
    if draft.note_type not in NOTE_TYPES:
        raise CaptureError(
            f"unknown note type {draft.note_type!r}", f"use one of: {', '.join(NOTE_TYPES)}"
        )
    chosen = secret_free_title(draft.title or derive_title(draft.text))
    stem = safe_file_stem(chosen) or f"Capture {dt.datetime.now():%Y-%m-%d %H%M%S}"
    chosen = chosen or stem
    root = vault_root(vault.path)
    folder = _inbox(root, inbox_folder(vault.path, draft.inbox))
    _check_served(vault.config, folder)
    content = note_markdown(
        draft.text,
        title=chosen,
        note_type=draft.note_type,
        domain=draft.domain,
        tags=draft.tags,
        source=draft.source,
        today=today,
    )
    for attempt in range(1, MAX_NAME_ATTEMPTS + 1):
        name = f"{stem}.md" if attempt == 1 else f"{stem} {attempt}.md"
        path = f"{folder}/{name}" if folder else name
        if os.path.lexists(root / path):  # a link planted at the name counts as taken
            continue
        context = Context(f"capture {path}", source="cli")
        try:
            with vault.change_batch(context, "create") as batch:
                batch.create(path, content)
        except NoteChangeError:
            if os.path.lexists(root / path):  # written meanwhile by someone else
                continue
            raise
        assert batch.change is not None  # set when the block ends without an error
        return path, root / path, chosen, batch.change
    raise CaptureError(
        f"{MAX_NAME_ATTEMPTS} notes named {stem!r} already exist in {folder or 'the vault'}",
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


def _inbox(root: Path, relative: str) -> str:
    """The inbox's vault-relative real path: each existing folder on the way resolved (a link
    inside the vault followed to where it leads) and checked to be inside the vault, so a link
    planted at any level never receives a note. Missing folders are left for the change to
    create, one at a time, each recorded with the note."""
    folder = root
    parts = relative.split("/")
    for depth, part in enumerate(parts):
        wanted = folder / part
        if not os.path.lexists(wanted):
            return "/".join([*_parts_below(root, folder), *parts[depth:]])
        real = Path(os.path.realpath(wanted))
        if real != root and root not in real.parents:
            raise CaptureError(
                f"{wanted} leads outside the vault (to {real}); capture writes only inside "
                "the vault",
                "replace the link with a real folder",
            )
        if not real.is_dir():
            raise CaptureError(f"{wanted} is not a folder", "move it away so captures can go there")
        folder = real
    return "/".join(_parts_below(root, folder))


def _parts_below(root: Path, folder: Path) -> list[str]:
    return list(folder.relative_to(root).parts)


def _check_served(config: Config, folder: str) -> None:
    """Refuse an inbox the ignore rules exclude: vaultctx writes only where it reads (a change
    there could not be searched, and the ledger records only notes it serves)."""
    from vaultctx.vault.scanner import is_served_path, load_ignore_rules

    rules, _ = load_ignore_rules(config.vault, config.settings.ignore)
    probe = f"{folder}/Capture.md" if folder else "Capture.md"
    if not is_served_path(probe, rules):
        rule = rules.excluding_rule(probe, folder=False)
        raise CaptureError(
            f"the inbox {folder or '(the vault root)'}/ is excluded by the ignore rules "
            f"({rule or 'a path vaultctx never indexes'}), and capture writes only where "
            "vaultctx reads; nothing was written",
            "set inbox_folder in vaultctx.toml to a folder that is indexed"
            + (f", or {rule.fix}" if rule else ""),
        )


def capture(vault: ChangingVault, draft: CaptureDraft) -> CaptureResult:
    """Write the note (one ledger record), then make sure the next search finds it.

    The change updates an existing index itself; a vault never indexed gets its index now (the
    fast pass). When another indexer (``vaultctx watch``, ``serve --http --watch``) holds the
    index, the note is left to it: it sees the new file within seconds. ``indexed`` is read back
    from the index, never assumed.
    """
    from vaultctx.index.db import index_exists
    from vaultctx.index.indexer import Indexer, IndexerBusyError
    from vaultctx.index.lookups import file_is_indexed

    config = vault.config
    had_index = index_exists(config.db)
    inbox = draft.inbox or config.settings.inbox_folder
    path, file, chosen, change = write_capture(vault, replace(draft, inbox=inbox))
    notices = list(change.notices)
    skipped: list[str] = []
    if not had_index:
        try:
            # The static engine only: the fast pass never needs the transformer model loaded.
            report = Indexer(config, vault.embedder()).run(fast=True)
        except IndexerBusyError:
            notices.append(
                "another vaultctx process is updating the index and will pick the note up "
                "(if none is watching the vault, run `vaultctx index`)"
            )
            return CaptureResult(path, file, chosen, False, notices)
        skipped = [s["reason"] for s in report.skipped if s["path"] == path]  # e.g. too big
    indexed = index_exists(config.db) and file_is_indexed(config.db, path)
    if not indexed and not notices:
        notices.append(f"not indexed: {skipped[0] if skipped else 'the indexer did not take it'}")
    return CaptureResult(path, file, chosen, indexed, notices)


__all__ = [
    "INBOX_FOLDER",
    "CaptureDraft",
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
