"""Reading one note and listing notes: what the MCP server (and later the agent) shows a model.

Reading goes to the file, because the vault is the source of truth and a note edited since the last
index run should read as it is now. Listing asks the index, which knows every note's title, type,
tags and modification time without opening 50,000 files. Both are read-only, confined to the vault
(``vault.paths``), credential-scrubbed and token-limited like every other output.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import posixpath
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from vaultctx.config import Config
from vaultctx.db_location import IndexLocation
from vaultctx.index.db import IndexDatabase, IndexDatabaseError, open_index
from vaultctx.index.inspect import note_paths
from vaultctx.index.lookups import (
    ListedNote,
    indexed_paths_among,
    newest_notes,
    top_level_folders,
)
from vaultctx.scrub import scrub_secrets
from vaultctx.search.budget import estimate_tokens, fit_to_budget
from vaultctx.search.filters import Filters, matching_file_ids
from vaultctx.search.request import InvalidSearchError
from vaultctx.vault.errors import UnreadableFileError
from vaultctx.vault.markdown_blocks import Heading, outline
from vaultctx.vault.note import parse_note
from vaultctx.vault.paths import (
    MAX_PATH_CHARS,
    VaultAccessError,
    VaultPath,
    is_vault_folder,
    normalize_vault_path,
    resolve_indexed_file,
    resolve_vault_file,
)
from vaultctx.vault.private_paths import is_ignored
from vaultctx.vault.scanner import (
    IgnoreRules,
    VaultFile,
    is_indexed_name,
    load_ignore_rules,
    read_vault_file,
)

READ_NOTE_MAX_TOKENS = 8000
LIST_NOTES_LIMIT = 20
# A note's heading list helps a model ask for one section; a generated note can have thousands.
MAX_HEADINGS_SHOWN = 100

_SPACES = re.compile(r"\s+")


class NoteNotFoundError(VaultAccessError):
    """No such note; the suggestion names the closest paths the index knows."""


class SectionNotFoundError(VaultAccessError):
    """The note has no heading with that text; the suggestion lists its headings."""


@dataclass(frozen=True)
class NoteText:
    """A note (or one section of it) as a model should see it.

    ``tokens`` is what ``text`` costs, ``total_tokens`` what the whole note or section would have;
    they differ exactly when ``truncated``, and ``notice`` then says how to read the rest.
    """

    path: str
    title: str
    section: str | None
    text: str
    headings: list[str]
    truncated: bool
    tokens: int
    total_tokens: int
    redactions: int
    notice: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class NoteInfo:
    """One row of a listing; ``modified`` is the file's mtime as local ISO 8601 with offset."""

    path: str
    title: str
    type: str | None
    status: str | None
    tags: list[str]
    modified: str


@dataclass(frozen=True)
class NoteList:
    """Notes matching the filters, newest first; ``total`` counts all matches, not only shown."""

    notes: list[NoteInfo]
    total: int
    filters: dict[str, str] = field(default_factory=dict)
    suggestion: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_note(
    config: Config,
    path: str,
    *,
    section: str | None = None,
    max_tokens: int = READ_NOTE_MAX_TOKENS,
) -> NoteText:
    """The text of the note at the vault-relative ``path``, or of one ``section`` (heading text).

    ``path`` may be a search citation (``folder/Note.md#Heading``), may omit ``.md``, and may be a
    bare file name when exactly one indexed note has it, as Obsidian resolves links.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    rules, _ = load_ignore_rules(config.vault, config.settings.ignore)
    literal = _indexed_spelling(config.db, path)
    if literal is not None:
        indexed, heading = literal
        located = resolve_indexed_file(config.vault, indexed, rules)
        section = section if section else heading
    else:
        path, section = _split_citation(path, section)
        located = _locate(config, path, rules)
    text = _read_text(config, located)
    note = parse_note(located.relative, text)
    headings = outline(note.body).headings if located.relative.lower().endswith(".md") else []
    shown = note.body if located.relative.lower().endswith((".html", ".htm")) else text
    matched = None
    if section is not None and section.strip():
        matched, shown = _section_text(note.body, headings, section, located.relative)
    scrubbed = scrub_secrets(shown)
    total = estimate_tokens(scrubbed.text)
    fitted = fit_to_budget([scrubbed.text], max_tokens)[0]
    truncated = fitted != scrubbed.text
    notice = None
    if truncated:
        notice = f"truncated: showing about {estimate_tokens(fitted)} of {total} tokens; " + (
            "pass `section` with one of the headings to read another part"
            if headings
            else "raise max_tokens to read more"
        )
    return NoteText(
        path=scrub_secrets(located.relative).text,
        title=scrub_secrets(note.title).text,
        section=matched,
        text=fitted,
        headings=[scrub_secrets(h.text).text for h in headings[:MAX_HEADINGS_SHOWN]],
        truncated=truncated,
        tokens=estimate_tokens(fitted),
        total_tokens=total,
        redactions=scrubbed.total,
        notice=notice,
    )


def _indexed_spelling(db_path: IndexLocation, path: str) -> tuple[str, str | None] | None:
    """(indexed path, heading) when ``path``, or its part before a ``#``, is exactly a path the
    index holds: list results show names such as ``C# notes.md`` or ``back\\slash.md`` as they
    are, and reading them back must work. None without an index or a match."""
    if not isinstance(path, str) or "\x00" in path or len(path) > MAX_PATH_CHARS:
        return None
    candidates = {path: None} | {
        path[:index]: path[index + 1 :] or None for index, char in enumerate(path) if char == "#"
    }
    try:
        db = open_index(db_path, readonly=True)
    except IndexDatabaseError:
        return None
    try:
        found = set(indexed_paths_among(db, list(candidates)))
    finally:
        db.close()
    for candidate, heading in candidates.items():  # the whole path first, then shorter prefixes
        if candidate in found:
            return candidate, heading
    return None


def _split_citation(path: str, section: str | None) -> tuple[str, str | None]:
    """``Note.md#Heading`` → (``Note.md``, ``Heading``); an explicit ``section`` wins.

    Obsidian does not allow ``#`` in note names, so it always starts a heading here.
    """
    if "#" not in path:
        return path, section
    file_part, _, heading = path.partition("#")
    return file_part, section if section else heading or None


def _locate(config: Config, path: str, rules: IgnoreRules) -> VaultPath:
    """The file ``path`` means: as given (``.md`` implied, as in a wiki-link), or else the one
    indexed note with that file name."""
    relative = normalize_vault_path(path)
    if is_vault_folder(config.vault, relative):
        raise NoteNotFoundError(
            f"{relative} is a folder, not a note", f"list its notes with folder={relative!r}"
        )
    if not is_indexed_name(posixpath.basename(relative)):
        relative += ".md"
    located = resolve_vault_file(config.vault, relative, rules)
    if _is_file(located):
        return located
    # The index may still list a note ignored since it was indexed: never suggested.
    candidates = [
        path
        for path in _similar_indexed_paths(config.db, located.relative)
        if not is_ignored(path, rules, folder=False)
    ]
    if len(candidates) == 1 and _same_name(candidates[0], located.relative):
        same_name = resolve_vault_file(config.vault, candidates[0], rules)
        if same_name.absolute.is_file():
            return same_name
    suggestion = (
        "did you mean " + " or ".join(f"`{c}`" for c in candidates) + "?"
        if candidates
        else "find the note with a search, or list notes to see their paths"
    )
    raise NoteNotFoundError(f"no note at {located.relative}", suggestion)


def _is_file(located: VaultPath) -> bool:
    try:
        return located.absolute.is_file()
    except OSError:  # e.g. a name too long for this file system
        return False


def _same_name(indexed: str, wanted: str) -> bool:
    return posixpath.basename(indexed).casefold() == posixpath.basename(wanted).casefold()


def _similar_indexed_paths(db_path: IndexLocation, wanted: str) -> list[str]:
    """Indexed notes with the same file name, else the closest paths; [] without a usable index
    (suggestions are a courtesy: the missing note is the error to report)."""
    try:
        db = open_index(db_path, readonly=True)
    except IndexDatabaseError:
        return []
    try:
        paths = note_paths(db)
    finally:
        db.close()
    same_name = [p for p in paths if _same_name(p, wanted)]
    return sorted(same_name)[:5] or difflib.get_close_matches(wanted, paths, n=3, cutoff=0.6)


def _read_text(config: Config, located: VaultPath) -> str:
    try:
        stat = located.absolute.stat()
    except OSError as exc:
        raise NoteNotFoundError(
            f"cannot open {located.relative} ({exc.strerror})", "check the path and try again"
        ) from exc
    limit = config.settings.max_file_bytes
    if stat.st_size > limit:
        raise VaultAccessError(
            f"{located.relative} is {stat.st_size:,} bytes, over the {limit:,}-byte limit "
            "for notes (it is not indexed either)",
            "search for the part you need instead",
        )
    vault_file = VaultFile(located.relative, str(located.absolute), stat.st_mtime_ns, stat.st_size)
    try:
        return read_vault_file(vault_file)
    except UnreadableFileError as exc:
        raise VaultAccessError(str(exc), "this file cannot be shown as text") from exc


def _section_text(body: str, headings: list[Heading], wanted: str, path: str) -> tuple[str, str]:
    """(the heading's text, its section): from the heading to the next of the same or higher
    level, so asking for an H2 brings its H3s along."""
    key = _heading_key(wanted)
    for index, heading in enumerate(headings):
        if _heading_key(heading.text) != key:
            continue
        end = next((h.start for h in headings[index + 1 :] if h.level <= heading.level), len(body))
        return heading.text, body[heading.start : end].strip()
    if headings:
        names = ", ".join(f"`{h.text}`" for h in headings[:MAX_HEADINGS_SHOWN])
        suggestion = f"use one of its headings: {names}"
    else:
        suggestion = "this note has no headings; read it without `section`"
    raise SectionNotFoundError(
        f"{path} has no heading {scrub_secrets(wanted.strip()).text!r}", suggestion
    )


def _heading_key(text: str) -> str:
    return _SPACES.sub(" ", text.strip().lstrip("#").strip()).casefold()


def list_notes(
    db_path: IndexLocation, filters: Filters, *, limit: int = LIST_NOTES_LIMIT
) -> NoteList:
    """Indexed notes passing ``filters``, most recently modified first.

    The filters are search's (``search.filters``), so a listing and a filtered search agree:
    a tag matches nested tags too (``project`` finds ``project/billing``), as Obsidian's tag
    search does; dates without a time zone are local and a bare ``until`` date includes that
    whole day; ``where`` holds front matter conditions such as ``status = active``.
    """
    if limit < 1:
        raise InvalidSearchError(f"limit must be at least 1 (got {limit})", "give e.g. 20")
    shown = filters.describe()
    db = open_index(db_path, readonly=True)
    try:
        file_ids = matching_file_ids(db, filters)
        rows = newest_notes(db, file_ids, limit)
        suggestion = _empty_listing_advice(db, shown) if not file_ids else None
    finally:
        db.close()
    return NoteList([_note_info(row) for row in rows], len(file_ids), shown, suggestion)


def _note_info(row: ListedNote) -> NoteInfo:
    path, title, note_type, status, tags_json, mtime_ns = row
    modified = dt.datetime.fromtimestamp(int(mtime_ns) / 1e9).astimezone()
    return NoteInfo(
        path=scrub_secrets(str(path)).text,
        title=scrub_secrets(str(title)).text,
        type=None if note_type is None else str(note_type),
        status=None if status is None else str(status),
        tags=[scrub_secrets(str(t)).text for t in json.loads(str(tags_json))],
        modified=modified.isoformat(timespec="seconds"),
    )


def _empty_listing_advice(db: IndexDatabase, filters: dict[str, str]) -> str:
    """What to try when nothing matched; for a folder, the folders that do exist."""
    if "folder" in filters:
        folders = top_level_folders(db)
        if not folders:
            return "the vault has no folders; list without a folder"
        shown = ", ".join(f"`{f}`" for f in folders[:30])
        return f"no indexed notes in that folder; top-level folders are {shown}"
    if filters:
        return "remove a filter or widen the date range"
    return "the index is empty; run `vaultctx index` on the vault"
