"""``create_wiki_note``: one new AI-first note in the wiki folder, never over an existing one."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from vaultctx.brain.wiki import (
    CATEGORIES,
    NoteMeta,
    WikiNoteExistsError,
    ai_first_note,
    append_log,
    check_wiki_folder,
    enabled_settings,
    ensure_wiki_folders,
    one_line,
    vault_root,
    wiki_path,
)
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import Change, ChangeContext

DEFAULT_SOURCE = "create_wiki_note"


@dataclass(frozen=True)
class WikiNoteResult:
    path: str
    change: Change | None

    @property
    def message(self) -> str:
        return f"Wiki note created: {self.path}"

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "record_id": self.change.record_id if self.change else None,
            "notices": list(self.change.notices) if self.change else [],
        }


def wiki_note_path(folder: str, title: str, category: str | None) -> str:
    """``{wiki}/{category}/{title}.md`` for a known category, else ``{wiki}/{title}.md``."""
    wanted = (category or "").strip().lower()
    base = f"{folder}/{wanted}" if wanted in CATEGORIES else folder
    return wiki_path(base, title, what="title")


def create_wiki_note(
    vault: Vault,
    title: str,
    body: str,
    category: str | None = None,
    meta: Mapping[str, object] | None = None,
    *,
    change: ChangeContext,
    today: date | None = None,
) -> WikiNoteResult:
    """Write ``{wiki}/{category?}/{title}.md`` as an AI-first note (the wiki and its category
    folders made when missing), and a line in ``log.md``: one ledger record."""
    settings = enabled_settings(vault)
    if not one_line(title):
        raise VaultctxError("A note title is required.", "give the wiki note a title")
    root = vault_root(vault)
    check_wiki_folder(root, settings.wiki_folder)
    path = wiki_note_path(settings.wiki_folder, one_line(title), category)
    if os.path.lexists(root / path):
        raise WikiNoteExistsError(
            f"A note already exists and was not overwritten: {path}",
            "choose another title, or change the existing note with edit_note",
        )
    note_meta = NoteMeta.from_mapping(meta, source=DEFAULT_SOURCE, today=today or date.today())
    text = ai_first_note(one_line(title), body, note_meta)
    with vault.change_batch(change, "create") as batch:
        ensure_wiki_folders(batch, settings.wiki_folder)
        written = batch.create(path, text)
        append_log(batch, root, settings.wiki_folder, f"created {written}")
    return WikiNoteResult(written, batch.change)
