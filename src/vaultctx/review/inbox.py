"""``vaultctx review inbox`` (docs/review.md#inbox): the model proposes a folder, a better name
and tags for the newest notes in the inbox; the user accepts them item by item.

One model call sees up to ``MAX_NOTES`` notes (the newest first, in the folder and its
subfolders; each as its first ``EXCERPT_CHARS`` characters without front matter), the vault's
folders outside the inbox and its ``TOP_TAGS`` most common tags. Its answer is hostile input:
a note path must be one of the candidates, a folder one that exists (found by walking the vault
without following links, outside the inbox, ``.obsidian``, the trash and excluded folders),
titles lose path and link characters, tags are normalised, and a plan that changes nothing is
dropped. Each rejection is reported. Tags are written by ``vault.front_matter_edit.add_list_items``
(the edit ``vaultctx tags --apply`` makes).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.model_reply import json_array, shown
from vaultctx.proposals import Proposal, ReviewResult
from vaultctx.vault.folded_names import exists_folded
from vaultctx.vault.front_matter_edit import TAGS, add_list_items
from vaultctx.vault.note import split_front_matter
from vaultctx.vault.paths import UnsafePathError, normalize_vault_path
from vaultctx.vault.scanner import VaultFile, load_ignore_rules, read_vault_file, scan_vault
from vaultctx.vault.writes import NoteChangeError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

DEFAULT_FOLDER = "Inbox"
MAX_NOTES = 12
EXCERPT_CHARS = 500
TOP_TAGS = 30
MAX_TOKENS = 2500
MAX_FOLDERS = 300  # folders named to the model; a larger vault's deepest are left out
MAX_TAGS_PER_NOTE = 8
MAX_TITLE_CHARS = 120

SYSTEM = """You triage the notes in a personal knowledge base's inbox. For each note decide:
- folder: one of the existing folders listed (exactly as written), or "" to leave it where it is;
- title: a short, clear file name without extension, or "" to keep the current one;
- tags: up to 5 tags, preferring the existing tags listed.
Answer with a JSON array only, one object per note:
[{"path": "<the note's path as given>", "folder": "...", "title": "...", "tags": ["..."]}]"""

_NOT_TAG = re.compile(r"[^\w/-]+")
_HYPHENS = re.compile(r"-{2,}")
MAX_TAG_CHARS = 60
_TITLE_DROP = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')


@dataclass
class InboxFlow:
    model: TextModel
    folder: str = DEFAULT_FOLDER
    name: str = "inbox"
    notices: list[str] = field(default_factory=list)

    async def propose(self, vault: Vault) -> list[Proposal]:
        self.notices.clear()
        inbox = inbox_folder(vault, self.folder)
        notes = _newest_notes(vault, inbox)
        if not notes:
            self.notices.append(f"no notes in {inbox}/")
            return []
        texts = {note.path: _read(note) for note in notes}
        signals = [path for path, text in texts.items() if _untriaged_signal(text)]
        if signals:  # triage decides where a signal goes (docs/signals.md), not this review
            self.notices.append(f"{len(signals)} untriaged signal(s) left to `vaultctx triage`")
            notes = [note for note in notes if note.path not in signals]
            texts = {path: text for path, text in texts.items() if path not in signals}
            if not notes:
                return []
        folders = existing_folders(vault, inbox)
        tags = vault_common_tags(vault)
        reply = await self.model.complete(
            SYSTEM, _prompt(notes, texts, folders, tags), max_tokens=MAX_TOKENS
        )
        items = json_array(reply)
        if items is None:
            self.notices.append(
                f"the model's answer was not a JSON list, so nothing was proposed: {shown(reply)}"
            )
            return []
        return self._proposals(items, texts, folders)

    def _proposals(
        self, items: list[Any], texts: dict[str, str], folders: list[str]
    ) -> list[Proposal]:
        by_fold = {f.casefold(): f for f in folders}
        proposals: list[Proposal] = []
        seen: set[str] = set()
        for item in items[: MAX_NOTES * 2]:
            if not isinstance(item, dict):
                continue
            path = item.get("path")
            if not isinstance(path, str) or path not in texts:
                self.notices.append(f"dropped: {shown(str(path), 80)!r} is not one of the notes")
                continue
            if path in seen:
                continue
            seen.add(path)
            destination = self._destination(path, item, by_fold)
            have = note_tags(texts[path])
            raw_tags = item.get("tags")
            tags = [
                tag
                for tag in dict.fromkeys(
                    normalise_tag(t) for t in (raw_tags if isinstance(raw_tags, list) else [])
                )
                if tag and tag not in have
            ][:MAX_TAGS_PER_NOTE]
            if destination is None and not tags:
                continue  # changes nothing
            parts = [f"{path} -> {destination}"] if destination else [path]
            if tags:
                parts.append("tags " + ", ".join(f"+{t}" for t in tags))
            proposals.append(
                Proposal(
                    len(proposals) + 1,
                    "; ".join(parts),
                    "links to it in other notes are rewritten" if destination else "",
                    {"path": path, "destination": destination, "tags": tags},
                )
            )
        return proposals

    def _destination(self, path: str, item: dict[str, Any], by_fold: dict[str, str]) -> str | None:
        current = PurePosixPath(path)
        folder = str(current.parent) if current.parent != PurePosixPath(".") else ""
        wanted = item.get("folder")
        if isinstance(wanted, str) and wanted.strip().strip("/"):
            raw = wanted.strip().strip("/")
            try:
                normalised = normalize_vault_path(raw)
            except UnsafePathError:
                normalised = ""
            real = by_fold.get(normalised.casefold()) if normalised else None
            if real is None:
                self.notices.append(
                    f"{path}: folder {shown(raw, 80)!r} is not an existing folder outside the "
                    "inbox; not moved"
                )
            else:
                folder = real
        title = item.get("title")
        stem = clean_title(title) if isinstance(title, str) else ""
        name = f"{stem or current.stem}.md"
        destination = f"{folder}/{name}" if folder else name
        return None if destination == path else destination

    def apply(self, vault: Vault, accepted: list[Proposal]) -> ReviewResult:
        result = ReviewResult(None)
        moved = tagged = skipped = 0
        label = f"review inbox: {len(accepted)} notes"
        with vault.change_batch(ChangeContext(label, source="cli"), "review-inbox") as batch:
            for proposal in accepted:
                data = proposal.data
                path = str(data.get("path"))
                destination = data.get("destination")
                tags = [t for t in map(normalise_tag, _list(data.get("tags"))) if t]
                done = False
                try:
                    if not os.path.isfile(vault.path / path):
                        raise NoteChangeError(f"{path} no longer exists", "list again")
                    try:
                        if tags and batch.rewrite(path, _tagger(tags, path)):
                            tagged += 1
                            done = True
                    except VaultctxError as exc:  # the move may still happen
                        result.skipped.append(f"{proposal.number}: tags not added: {exc.message}")
                    if isinstance(destination, str) and destination:
                        if exists_folded(vault.path, destination):
                            skipped += 1
                            result.skipped.append(
                                f"{proposal.number}: {destination} exists; not moved"
                                + (" (tags added)" if done else "")
                            )
                        else:
                            batch.move(path, destination)
                            moved += 1
                            done = True
                except (VaultctxError, OSError) as exc:
                    skipped += 1
                    reason = exc.message if isinstance(exc, VaultctxError) else str(exc)
                    result.skipped.append(f"{proposal.number}: {reason}")
                if done:
                    result.applied.append(proposal.number)
        assert batch.change is not None
        result.record_id = batch.change.record_id
        result.paths = batch.change.paths
        result.notices = [f"moved {moved}, tagged {tagged}, skipped {skipped}"]
        result.notices += batch.change.notices
        return result


def inbox_folder(vault: Vault, folder: str) -> str:
    """The inbox as a vault-relative folder that exists and is a real folder (not a link)."""
    try:
        relative = normalize_vault_path(folder.strip().strip("/"))
    except UnsafePathError as exc:
        raise VaultctxError(f"--folder {folder!r}: {exc.message}", exc.suggestion) from None
    absolute = vault.path / relative
    if os.path.islink(absolute) or not os.path.isdir(absolute):
        raise VaultctxError(
            f"there is no folder {relative}/ in the vault {vault.path}",
            "pass the inbox folder with --folder NAME",
        )
    return relative


def existing_folders(vault: Vault, inbox: str) -> list[str]:
    """The vault's folders a note may move to: real folders (links are not followed), outside
    dot-folders (.obsidian, .trash), excluded folders and the inbox, sorted, at most
    ``MAX_FOLDERS`` (shallowest first)."""
    rules = load_ignore_rules(vault.path, vault.config.settings.ignore)[0]
    root = str(vault.path)
    found: list[str] = []
    for current, subfolders, _ in os.walk(root):
        relative = os.path.relpath(current, root).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        keep = []
        for name in sorted(subfolders):
            path = prefix + name
            if (
                name.startswith(".")
                or os.path.islink(os.path.join(current, name))
                or rules.excludes_folder(path)
                or path.casefold() == inbox.casefold()
            ):
                continue
            keep.append(name)
            found.append(path)
        subfolders[:] = keep
    found.sort(key=lambda path: (path.count("/"), path))
    return sorted(found[:MAX_FOLDERS])


def vault_common_tags(vault: Vault) -> list[str]:
    """The ``TOP_TAGS`` tags most notes carry ([] without an index: the inbox works anyway)."""
    try:
        return [tag for tag, _ in vault.tag_counts(limit=TOP_TAGS)]
    except VaultctxError:
        return []


def normalise_tag(raw: object) -> str:
    """``"#Machine Learning"`` -> ``machine-learning``: lower case, hyphens for spaces, only
    letters, digits, ``_``, ``-`` and ``/``; "" for nothing usable (all digits is not a tag in
    Obsidian)."""
    if not isinstance(raw, str):
        return ""
    tag = "-".join(raw.strip().lstrip("#").lower().split())
    tag = _HYPHENS.sub("-", _NOT_TAG.sub("-", tag)).strip("-/")[:MAX_TAG_CHARS].strip("-/")
    return "" if not tag or tag.replace("/", "").isdigit() else tag


def note_tags(text: str) -> set[str]:
    """The note's front matter tags, normalised (a list, or one string of several)."""
    front, _, _ = split_front_matter(text)
    raw = front.get("tags", front.get("tag"))
    items = re.split(r"[,\s]+", raw) if isinstance(raw, str) else raw
    return (
        {normalise_tag(item) for item in items if normalise_tag(item)}
        if isinstance(items, list)
        else set()
    )


def clean_title(raw: str) -> str:
    title = raw.strip()
    if title.lower().endswith(".md"):
        title = title[:-3]
    title = " ".join(_TITLE_DROP.sub(" ", title).split()).strip(". ")
    return title[:MAX_TITLE_CHARS].strip()


def _newest_notes(vault: Vault, inbox: str) -> list[VaultFile]:
    settings = vault.config.settings
    scan = scan_vault(
        vault.path, max_file_bytes=settings.max_file_bytes, extra_ignores=settings.ignore
    )
    prefix = inbox.casefold() + "/"
    notes = [
        f
        for f in scan.files
        if f.path.casefold().startswith(prefix)
        and f.path.endswith(".md")
        and not os.path.islink(vault.path / f.path)
    ]
    notes.sort(key=lambda f: (-f.mtime_ns, f.path))
    return notes[:MAX_NOTES]


def _untriaged_signal(text: str) -> bool:
    front_matter = split_front_matter(text)[0]
    kind = str(front_matter.get("type", "")).strip().lower()
    return kind == "signal" and "triage" not in front_matter


def _read(note: VaultFile) -> str:
    try:
        return read_vault_file(note)
    except (OSError, UnicodeDecodeError):
        return ""


def _prompt(
    notes: list[VaultFile], texts: dict[str, str], folders: list[str], tags: list[str]
) -> str:
    lines = ["Existing folders:"]
    lines += [f"- {folder}" for folder in folders] or ["(none)"]
    lines += ["", "Existing tags: " + (", ".join(tags) or "(none)"), "", "Notes:"]
    for note in notes:
        text = texts[note.path]
        body = text[split_front_matter(text)[1] :]
        lines += ["", f"path: {note.path}", "excerpt:", body[:EXCERPT_CHARS]]
    return "\n".join(lines)


def _tagger(tags: list[str], path: str) -> Callable[[str], str]:
    return lambda text: add_list_items(text, TAGS, tags, name=path)


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


__all__ = ["InboxFlow", "clean_title", "existing_folders", "inbox_folder"]
