"""``update_index``: the catalogue of the wiki's notes in ``{wiki}/index.md``.

The catalogue lives in the note's ``catalog`` block; whatever the user wrote around it stays.
Notes are grouped by their category folder (entities, concepts, projects, then the rest under
"Other") and sorted by title, then path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultctx.brain.markers import upsert_block
from vaultctx.brain.wiki import (
    CATEGORIES,
    DASHBOARD_FOLDER,
    INDEX_NOTE,
    LOG_NOTE,
    append_log,
    check_wiki_folder,
    enabled_settings,
    note_link,
    note_title,
    vault_root,
    wiki_note_paths,
)
from vaultctx.vault.scanner import load_ignore_rules

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.batch import ChangeBatch
    from vaultctx.ledger.context import Change, ChangeContext

CATALOG_KEY = "catalog"
HEADING = "# 📚 Index"
EMPTY = "_No wiki notes yet._"
OTHER = "Other"


@dataclass(frozen=True)
class CatalogResult:
    path: str
    notes: int
    written: bool
    change: Change | None

    @property
    def message(self) -> str:
        if not self.written:
            return f"Index catalog already current: {self.notes} note(s) ({self.path})"
        return f"Index catalog updated: {self.notes} note(s) ({self.path})"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "notes": self.notes,
            "written": self.written,
            "record_id": self.change.record_id if self.change else None,
        }


def catalog(folder: str, paths: list[str]) -> str:
    """The catalogue's markdown for the notes ``paths`` of the wiki ``folder``."""
    if not paths:
        return f"{HEADING}\n\n{EMPTY}"
    groups: dict[str, list[str]] = {name: [] for name in (*CATEGORIES, OTHER)}
    for path in paths:
        inside = path[len(folder) + 1 :].split("/")
        group = inside[0] if len(inside) > 1 and inside[0] in CATEGORIES else OTHER
        groups[group].append(path)
    sections = [HEADING]
    for name, members in groups.items():
        if not members:
            continue
        members.sort(key=lambda path: (note_title(path).casefold(), path))
        lines = "\n".join(f"- {note_link(path, note_title(path))}" for path in members)
        sections.append(f"## {name}\n\n{lines}")
    return "\n\n".join(sections)


def update_index(vault: Vault, *, change: ChangeContext) -> CatalogResult:
    """Rewrite the ``catalog`` block of ``{wiki}/index.md`` (made when missing); nothing is
    written when the catalogue is unchanged."""
    settings = enabled_settings(vault)
    with vault.change_batch(change, "replace") as batch:
        index_path, notes, written = update_index_in(batch, vault, settings.wiki_folder)
    return CatalogResult(index_path, notes, written, batch.change)


def update_index_in(batch: ChangeBatch, vault: Vault, folder: str) -> tuple[str, int, bool]:
    """The catalogue's refresh as steps of ``batch`` (the scheduler's run holds one for all its
    steps): (index.md's path, notes listed, whether it was written)."""
    root = vault_root(vault)
    check_wiki_folder(root, folder)
    skip = {f"{folder}/{INDEX_NOTE}", f"{folder}/{LOG_NOTE}"}
    rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
    items = f"{folder}/{DASHBOARD_FOLDER}/"
    paths = [
        path
        for path in wiki_note_paths(root, folder, rules)
        if path not in skip and not path.startswith(items)
    ]
    content = catalog(folder, paths)
    index_path = f"{folder}/{INDEX_NOTE}"
    written = False
    if not os.path.lexists(root / index_path):
        batch.create(index_path, upsert_block("", CATALOG_KEY, content))
        written = True
    else:
        written = batch.rewrite(
            index_path, lambda text: upsert_block(text, CATALOG_KEY, content, name=index_path)
        )
    if written:
        append_log(batch, root, folder, f"index catalog updated: {len(paths)} note(s)")
    return index_path, len(paths), written
