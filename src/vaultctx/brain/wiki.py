"""The wiki folder: where the Second Brain may write, and the shape of what it writes there.

Every path the Second Brain writes is built here from a name inside the wiki folder: a name that
is absolute, starts with a drive or steps up with ``..`` is refused before anything else runs,
and a wiki folder that is a file or a symbolic link (or sits under one) is refused with the fix,
so a write never lands beside the user's notes or out of the vault. The ledger then confines
each write again (links refused, atomic, undoable).

Notes the Second Brain creates are "AI-first" (docs/second-brain.md#the-ai-first-note-format):
front matter saying how far to trust them, then a fixed paragraph for the next model that reads
the note, then the body.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from vaultctx.brain.markers import neutralise
from vaultctx.brain.settings import SecondBrainSettings, load_second_brain_settings
from vaultctx.errors import VaultctxError
from vaultctx.vault.private_paths import is_ignored
from vaultctx.vault.scanner import IgnoreRules

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.batch import ChangeBatch

CATEGORIES = ("entities", "concepts", "projects")
INDEX_NOTE = "index.md"
# The Bases dashboard's item notes (review/dashboard.py): data for its views, not wiki notes.
DASHBOARD_FOLDER = "Dashboard"
LOG_NOTE = "log.md"
FOR_FUTURE_AI = (
    "## For future AI\n\n"
    "An AI wrote this note from the user's own notes. Before relying on it, weigh `recency` "
    "(evergreen or dated), `confidence`, `valid_from` and `learned_at` above; where it and the "
    "user's notes disagree, the user's notes win. Text between `@generated` markers is replaced "
    "when the note is regenerated; everything outside them is the user's."
)
_DRIVE = re.compile(r"^[A-Za-z]:")
# Characters a file name cannot hold on Windows (and Obsidian refuses): each becomes a hyphen.
_BAD_NAME_CHARS = re.compile(r'[:*?"<>|\x00-\x1f]')
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CONFIDENCE_WORDS = ("low", "medium", "high")


class WikiPathError(VaultctxError):
    """A name would put a Second Brain write outside the wiki folder."""


class WikiFolderError(VaultctxError):
    """The wiki folder is not a plain folder of the vault (a file, or a symbolic link)."""


class WikiNoteExistsError(VaultctxError):
    """create_wiki_note never overwrites."""


def enabled_settings(vault: Vault) -> SecondBrainSettings:
    """The vault's ``[second_brain]`` settings; ``SecondBrainOffError`` while it is off."""
    settings = load_second_brain_settings(vault.path)
    settings.require_enabled()
    return settings


def vault_root(vault: Vault) -> Path:
    return Path(os.path.realpath(vault.path))


def check_wiki_folder(root: Path, folder: str) -> None:
    """Refuse a wiki folder that is a file or a symbolic link, or lies under one (a link out of
    the vault would carry every later write with it). A folder not made yet is fine."""
    current = root
    for part in folder.split("/"):
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return
        except NotADirectoryError:
            info = None
        shown = current.relative_to(root).as_posix()
        if info is not None and stat.S_ISLNK(info.st_mode):
            problem = f"leads through the symbolic link {shown!r}"
            fix = "replace the link with a real folder"
        elif info is None or not stat.S_ISDIR(info.st_mode):
            problem, fix = f"cannot be created: {shown!r} is a file", "rename or move that file"
        else:
            continue
        raise WikiFolderError(
            f"the wiki folder {folder!r} {problem}; nothing was written",
            f"{fix}, or set [second_brain] wiki_folder in vaultctx.toml to another folder",
        )


def wiki_path(folder: str, name: str, *, what: str = "name") -> str:
    """``folder/name.md`` for a note name given by a user or a model: ``/`` makes subfolders
    inside the wiki; absolute names, drives and ``..`` are refused; characters no file name can
    hold become hyphens."""
    raw = name.strip()
    parts = [part.strip() for part in re.split(r"[/\\]", raw)]
    if raw.startswith(("/", "\\", "~")) or _DRIVE.match(raw) or ".." in parts:
        raise WikiPathError(
            f"the {what} {name!r} would lead outside the wiki folder {folder}/; "
            "nothing was written",
            f"give a plain {what} without '..', a leading '/' or a drive",
        )
    parts = [_BAD_NAME_CHARS.sub("-", part) for part in parts if part not in ("", ".")]
    if not parts:
        raise WikiPathError(f"the {what} is empty; nothing was written", f"give a {what}")
    stem = "/".join(parts)
    if stem.casefold().endswith(".md"):
        stem = stem[:-3]
    return f"{folder}/{stem}.md"


def one_line(text: str) -> str:
    """``text`` on one line, whitespace runs as single spaces (a title, a topic, a log line)."""
    return " ".join(text.split())


def note_link(path: str, title: str) -> str:
    """A link Obsidian resolves to ``path``: a wikilink, or, when the path or title holds ``#``
    or ``|`` (which a wikilink would read as a heading or an alias), a markdown link with the
    path percent-encoded."""
    target = path[:-3] if path.casefold().endswith(".md") else path
    if any(char in target + title for char in "#|"):
        shown = title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
        return f"[{shown}]({quote(path, safe='/')})"
    return f"[[{target}|{title}]]"


def note_title(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.casefold().endswith(".md") else name


@dataclass(frozen=True)
class NoteMeta:
    """The AI-first front matter's values, defaults applied."""

    recency: str = "evergreen"
    confidence: str = "medium"
    valid_from: str | None = None
    learned_at: str = ""
    source: str = ""
    tags: tuple[str, ...] = ()

    @classmethod
    def from_mapping(
        cls, meta: Mapping[str, object] | None, *, source: str, today: date
    ) -> NoteMeta:
        """``meta`` as a model or a user gives it: snake_case or camelCase keys, unknown keys
        ignored, a value of the wrong kind refused with the fix."""
        meta = meta or {}
        given_source = meta.get("source")
        return cls(
            recency="dated" if meta.get("recency") == "dated" else "evergreen",
            confidence=_confidence(meta.get("confidence")),
            valid_from=_date(meta, "valid_from", "validFrom"),
            learned_at=_date(meta, "learned_at", "learnedAt") or today.isoformat(),
            source=one_line(given_source) if isinstance(given_source, str) else source,
            tags=_tags(meta.get("tags")),
        )


def _confidence(value: object) -> str:
    if isinstance(value, bool):
        return "medium"
    if isinstance(value, (int, float)):
        if value != value:  # NaN
            return "medium"
        return f"{min(1.0, max(0.0, float(value))):g}"
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _CONFIDENCE_WORDS:
            return word
        try:
            return _confidence(float(word))
        except ValueError:
            pass
    return "medium"


def _date(meta: Mapping[str, object], snake: str, camel: str) -> str | None:
    value = meta.get(snake, meta.get(camel))
    if value is None or value == "":
        return None
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = str(value).strip()
    if not _DATE.match(text[:10]) or not _valid_day(text[:10]):
        raise VaultctxError(
            f"meta {snake} must be a date as YYYY-MM-DD, not {str(value)[:40]!r}; "
            "nothing was written",
            f"give {snake} as e.g. 2026-12-01, or leave it out",
        )
    return text[:10]


def _valid_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _tags(value: object) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    tags = (one_line(str(item)).lstrip("#").replace(" ", "-") for item in items)
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def ai_first_note(title: str, body: str, meta: NoteMeta) -> str:
    """The note's whole text: front matter (title, recency, confidence, valid_from, learned_at,
    source, tags, in that order), a blank line, the paragraph for future AI, the body."""
    lines = [
        "---",
        f"title: {json.dumps(one_line(title), ensure_ascii=False)}",
        f"recency: {meta.recency}",
        f"confidence: {meta.confidence}",
    ]
    if meta.valid_from:
        lines.append(f"valid_from: {meta.valid_from}")
    lines += [
        f"learned_at: {meta.learned_at}",
        f"source: {json.dumps(meta.source, ensure_ascii=False)}",
        f"tags: {json.dumps(list(meta.tags), ensure_ascii=False)}",
        "---",
        "",
        FOR_FUTURE_AI,
        "",
        "",
    ]
    text = "\n".join(lines) + neutralise(body)
    return text if text.endswith("\n") else text + "\n"


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def ensure_wiki_folders(batch: ChangeBatch, folder: str) -> None:
    """The wiki folder and its three category folders, each recorded by the batch when made."""
    batch.create_folder(folder)
    for category in CATEGORIES:
        batch.create_folder(f"{folder}/{category}")


def append_log(batch: ChangeBatch, root: Path, folder: str, message: str) -> None:
    """One ``- [timestamp] message`` line at the end of ``{wiki}/log.md`` (made when missing)."""
    line = f"- [{utc_now()}] {neutralise(one_line(message))}\n"
    path = f"{folder}/{LOG_NOTE}"
    if not os.path.lexists(root / path):
        batch.create(path, line)
        return

    def appended(text: str) -> str:
        return text + ("\n" if text and not text.endswith("\n") else "") + line

    batch.rewrite(path, appended)


def wiki_note_paths(root: Path, folder: str, rules: IgnoreRules | None = None) -> list[str]:
    """The vault-relative paths of the markdown notes under the wiki folder, sorted, never
    following a link and skipping hidden folders and files, and what ``rules`` ignore (none when
    the folder is refused)."""
    base = root / folder
    try:
        check_wiki_folder(root, folder)
    except WikiFolderError:
        return []
    if not base.is_dir():
        return []
    found: list[str] = []
    for current, folders, files in os.walk(base, followlinks=False):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in files:
            if name.casefold().endswith(".md") and not name.startswith("."):
                found.append(Path(current, name).relative_to(root).as_posix())
    if rules is not None:
        found = [path for path in found if not is_ignored(path, rules, folder=False)]
    return sorted(found)


def wiki_notes(
    root: Path, folder: str, max_bytes: int, rules: IgnoreRules | None = None
) -> Iterator[tuple[str, str]]:
    """(path, text) of each note of ``wiki_note_paths`` that is a regular file of at most
    ``max_bytes`` in UTF-8."""
    for relative in wiki_note_paths(root, folder, rules):
        absolute = root / relative
        try:
            info = os.lstat(absolute)
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                continue
            yield relative, absolute.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue


__all__ = [
    "CATEGORIES",
    "FOR_FUTURE_AI",
    "NoteMeta",
    "WikiFolderError",
    "WikiNoteExistsError",
    "WikiPathError",
    "ai_first_note",
    "append_log",
    "check_wiki_folder",
    "enabled_settings",
    "ensure_wiki_folders",
    "note_link",
    "note_title",
    "one_line",
    "wiki_note_paths",
    "wiki_notes",
    "wiki_path",
]
