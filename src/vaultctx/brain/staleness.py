"""Which synthesis notes are outdated: a source chunk they were written from changed or vanished.

Every synthesis note in the wiki folder records the index's hash of each source chunk. A source
is current while its recorded hash is among the hashes the index holds now for that path; a path
the index no longer holds (deleted, renamed, ignored) has none. ``refresh_stale`` rewrites the
provenance block of each note whose set of changed paths differs from the one it shows: the
warning callout listing them, or the "current" callout again once they match. Only that block is
touched, all notes in one ledger record ("brain stale-check"), so one ``vaultctx undo`` takes the
marks back. It runs after ``vaultctx index`` and after each batch of ``vaultctx watch`` (and of
``serve --http --watch``) while the Second Brain is enabled
(docs/second-brain.md#provenance-and-staleness).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultctx.brain.markers import MarkerError, read_block, upsert_block
from vaultctx.brain.provenance import PROVENANCE_KEY, Provenance, changed_paths, parse, render
from vaultctx.brain.settings import load_second_brain_settings
from vaultctx.brain.wiki import enabled_settings, vault_root, wiki_notes
from vaultctx.vault.scanner import load_ignore_rules

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.index.db import IndexDatabase
    from vaultctx.ledger.context import Change

STALE_CHECK_LABEL = "brain stale-check"


@dataclass(frozen=True)
class StaleNote:
    """A synthesis note with changed sources. ``marked``: the note shows it (its callout lists
    exactly ``changed``)."""

    path: str
    topic: str
    changed: tuple[str, ...]
    marked: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "topic": self.topic,
            "changed_sources": list(self.changed),
            "marked": self.marked,
        }


@dataclass
class StaleCheck:
    """What one check found and did: the stale notes, the notes whose mark was rewritten, the
    notes it could not read (a broken marker), and the ledger change (None: nothing written)."""

    stale: list[StaleNote]
    rewritten: list[str]
    unreadable: list[str]
    change: Change | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "stale": [note.as_dict() for note in self.stale],
            "rewritten": self.rewritten,
            "unreadable": self.unreadable,
            "record_id": self.change.record_id if self.change else None,
        }

    def report_lines(self) -> list[str]:
        """What a person is told after an index run: nothing while every synthesis is current."""
        lines = [
            f"Second Brain: {note.path} is outdated (changed: {', '.join(note.changed)})"
            for note in self.stale
        ]
        lines += [
            f"Second Brain: {path} was not checked: its generated-block markers are broken"
            for path in self.unreadable
        ]
        return lines


def refresh_stale(vault: Vault, *, write: bool = True) -> list[StaleNote]:
    """The stale synthesis notes of the wiki folder, each marked in the note when ``write``."""
    return check_stale(vault, write=write).stale


def check_after_index(vault: Vault) -> StaleCheck | None:
    """The stale check an index run ends with, while the Second Brain is enabled (else None)."""
    if not load_second_brain_settings(vault.path).enabled:
        return None
    return check_stale(vault)


def check_stale(vault: Vault, *, write: bool = True) -> StaleCheck:
    from vaultctx.ledger.context import ChangeContext

    folder = enabled_settings(vault).wiki_folder
    root = vault_root(vault)
    found: list[tuple[str, Provenance]] = []
    unreadable: list[str] = []
    rules, _ = load_ignore_rules(vault.path, vault.config.settings.ignore)
    for path, text in wiki_notes(root, folder, vault.config.settings.max_file_bytes, rules):
        try:
            block = read_block(text, PROVENANCE_KEY, name=path)
        except MarkerError:
            unreadable.append(path)
            continue
        provenance = parse(block) if block is not None else None
        if provenance is not None:
            found.append((path, provenance))
    if not found:
        return StaleCheck([], [], unreadable)
    current = _current_hashes(vault, sorted({s.path for _, p in found for s in p.sources}))
    stale: list[StaleNote] = []
    updates: dict[str, tuple[str, ...]] = {}
    for path, provenance in found:
        changed = changed_paths(provenance.sources, current)
        if changed != provenance.changed_paths:
            updates[path] = changed
        if changed:
            shown = changed == provenance.changed_paths or write
            stale.append(StaleNote(path, provenance.topic, changed, shown))
    check = StaleCheck(stale, [], unreadable)
    if not write or not updates:
        return check
    context = ChangeContext(STALE_CHECK_LABEL, source="cli")
    with vault.change_batch(context, "replace") as batch:
        for path, changed in updates.items():

            def marked(text: str, path: str = path, changed: tuple[str, ...] = changed) -> str:
                block = read_block(text, PROVENANCE_KEY, name=path)
                provenance = parse(block) if block is not None else None
                if provenance is None:  # changed since it was read: left for the next check
                    return text
                return upsert_block(
                    text, PROVENANCE_KEY, render(provenance.with_changed(changed)), name=path
                )

            try:
                if batch.rewrite(path, marked):
                    check.rewritten.append(path)
            except MarkerError:
                check.unreadable.append(path)
    check.change = batch.change
    return check


def _current_hashes(vault: Vault, paths: list[str]) -> dict[str, set[str]]:
    from vaultctx.index.db import open_index
    from vaultctx.index.provenance_queries import chunk_hashes_by_path

    db: IndexDatabase = open_index(vault.db_path, readonly=True)
    try:
        found = chunk_hashes_by_path(db, paths)
    finally:
        db.close()
    return {path: {digest.hex() for digest in hashes} for path, hashes in found.items()}
