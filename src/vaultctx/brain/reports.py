"""The four reports that need no language model, over a ``Vault`` and its index
(docs/second-brain.md#reports-without-a-model). Each refuses while the Second Brain is off.

They read only the index (notes, chunk texts, links, stored static vectors): run ``vaultctx
index`` first, and the reports see the vault as it was then.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vaultctx.brain.duplicates import DuplicateCluster, duplicate_clusters
from vaultctx.brain.gaps import Gap, knowledge_gaps
from vaultctx.brain.link_suggestions import LinkSuggestion
from vaultctx.brain.link_suggestions import link_suggestions as suggest_links
from vaultctx.brain.note_vectors import load_note_vectors
from vaultctx.brain.obsidian_opens import last_open_files, record_opens
from vaultctx.brain.reported_opens import load_reported_opens, opens_file
from vaultctx.brain.review_queue import QueuedNote
from vaultctx.brain.review_queue import review_queue as queue_notes
from vaultctx.brain.review_state import load_review_state, save_review_state, state_file
from vaultctx.brain.settings import SecondBrainSettings, load_second_brain_settings
from vaultctx.brain.vault_facts import VaultFacts, load_vault_facts
from vaultctx.index.db import IndexMissingError
from vaultctx.search.ignored_results import ignored_now

if TYPE_CHECKING:
    from vaultctx.api import Vault


@dataclass(frozen=True)
class QueueReport:
    notes: list[QueuedNote]
    notices: list[str] = field(default_factory=list)


def enabled_settings(vault: Vault) -> SecondBrainSettings:
    settings = load_second_brain_settings(vault.path)
    settings.require_enabled()
    return settings


def vault_facts(vault: Vault, settings: SecondBrainSettings) -> VaultFacts:
    try:
        ignored = ignored_now(vault.path, vault.config.settings.ignore)
        return load_vault_facts(vault.path, vault.db_path, settings.wiki_folder, ignored)
    except IndexMissingError as exc:  # advise this vault's own command, --db included
        raise type(exc)(exc.message, f"run `{vault.index_command()}` first") from exc


def gaps(vault: Vault) -> list[Gap]:
    """The 20 heaviest knowledge gaps."""
    settings = enabled_settings(vault)
    return knowledge_gaps(vault_facts(vault, settings))


def link_suggestions(vault: Vault) -> list[LinkSuggestion]:
    """Up to three unlinked similar notes for each orphan and stub."""
    settings = enabled_settings(vault)
    facts = vault_facts(vault, settings)
    vectors = load_note_vectors(vault.db_path, facts.notes)
    return suggest_links(facts, vectors, settings.link_threshold)


def duplicates(vault: Vault) -> list[DuplicateCluster]:
    """Clusters of near-duplicate notes, each around its canonical note."""
    settings = enabled_settings(vault)
    facts = vault_facts(vault, settings)
    vectors = load_note_vectors(vault.db_path, facts.notes)
    return duplicate_clusters(facts, vectors, settings.duplicate_threshold)


def review_queue(
    vault: Vault, *, record: bool = True, clock: Callable[[], float] = time.time
) -> QueueReport:
    """Five notes to read again; ``record`` remembers them as shown, so the next 7 days show
    others."""
    settings = enabled_settings(vault)
    facts = vault_facts(vault, settings)
    path = state_file(vault.path)
    state = load_review_state(path)
    now = clock()
    known = facts.by_path()
    seen = last_open_files(vault.path, known, now)
    before = [p for p in state.open_files if p in known]  # as seen now: a note gone is not listed
    opened = record_opens(state.opened, before, seen)
    reported = load_reported_opens(opens_file(vault.path))
    notes = queue_notes(facts, state.surfaced, now, opened=latest(opened, reported.last_opened()))
    if record and (notes or state.notices or opened != state.opened):
        kept = {p: t for p, t in state.surfaced.items() if p in known}  # renamed or deleted: gone
        kept.update({note.path: now for note in notes})
        opens = {p: t for p, t in opened.items() if p in known}
        save_review_state(path, kept, opens, seen.paths)
    return QueueReport(notes, state.notices + seen.notices + reported.notices)


def latest(*opened: dict[str, float]) -> dict[str, float]:
    """Each note's last open by any of the sources: the plugin's record is exact, Obsidian's
    list is dated by when Obsidian wrote it, and either may have missed an open (the plugin
    switched off, a note pushed off the list)."""
    merged: dict[str, float] = {}
    for source in opened:
        for path, when in source.items():
            merged[path] = max(merged.get(path, when), when)
    return merged
