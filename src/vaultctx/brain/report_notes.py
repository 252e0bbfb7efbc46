"""The offline reports as markdown, and as notes in the wiki folder (``--write``).

Each report lives in its own note, inside its generated block, so the user may write around it:
``{wiki}/Knowledge Gaps.md`` (block ``knowledge-gaps``), ``Link Suggestions.md``
(``related-links-report``), ``Duplicate Candidates.md`` (``canonical-candidates-report``) and
``Review Queue.md`` (``review-queue``). Writing goes through one ledger record (``vaultctx undo``
reverts it), replaces only the block, and writes nothing when the report is unchanged. The text
holds no timestamp for that reason.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vaultctx.brain.duplicates import DuplicateCluster
from vaultctx.brain.gaps import KINDS, Gap
from vaultctx.brain.link_suggestions import LinkSuggestion
from vaultctx.brain.markers import upsert_block
from vaultctx.brain.review_queue import QueuedNote
from vaultctx.brain.settings import SecondBrainSettings
from vaultctx.brain.wikilinks import note_link
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.batch import ChangeBatch


@dataclass(frozen=True)
class ReportNote:
    name: str  # the note's file name, without .md
    key: str  # its generated block


REPORT_NOTES = {
    "gaps": ReportNote("Knowledge Gaps", "knowledge-gaps"),
    "links": ReportNote("Link Suggestions", "related-links-report"),
    "duplicates": ReportNote("Duplicate Candidates", "canonical-candidates-report"),
    "review-queue": ReportNote("Review Queue", "review-queue"),
}

# A report note lists at most this many source notes or clusters: a vault of versioned copies
# (the PowerShell docs: 3,542 clusters) would otherwise get a note of megabytes nobody reads.
MAX_SHOWN = 100

_GAP_HEADINGS = {
    "missing": "Missing notes",
    "stub": "Stubs",
    "orphan": "Orphans",
    "one-way": "One-way links",
}


class WikiFolderError(VaultctxError):
    """The wiki folder cannot hold the Second Brain's notes."""


@dataclass(frozen=True)
class WrittenReport:
    path: str
    record_id: str | None  # None: the note already held this report, nothing was written
    notices: Sequence[str] = ()


def render_gaps(gaps: Sequence[Gap]) -> str:
    if not gaps:
        return "_No knowledge gaps found._"
    parts = [f"The {len(gaps)} heaviest gaps; nothing is fixed automatically."]
    for kind in KINDS:
        lines = [_gap_line(gap) for gap in gaps if gap.kind == kind]
        if lines:
            parts.append(f"### {_GAP_HEADINGS[kind]}\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _gap_line(gap: Gap) -> str:
    if gap.kind == "missing":
        return f"- {note_link(gap.name)} — {gap.detail}"
    if gap.kind == "one-way":
        target = note_link(gap.target, gap.target_title)
        return f"- {note_link(gap.name, gap.title)} — links to {target}, which does not link back"
    return f"- {note_link(gap.name, gap.title)} — {gap.detail}"


def render_links(suggestions: Sequence[LinkSuggestion]) -> str:
    if not suggestions:
        return "_No link suggestions._"
    parts = []
    sources = list(dict.fromkeys(s.source for s in suggestions))
    shown = set(sources[:MAX_SHOWN])
    current = None
    for s in suggestions:
        if s.source not in shown:
            continue
        if s.source != current:
            current = s.source
            parts.append(f"\n### {note_link(s.source, s.source_title)} ({s.reason})")
        parts.append(f"- {note_link(s.target, s.target_title)} (similarity {s.similarity:.1%})")
    more = _more(len(sources), "notes", "vaultctx brain links --json")
    return _listed(parts, more, "Apply them with `vaultctx review links`.")


def render_duplicates(clusters: Sequence[DuplicateCluster]) -> str:
    if not clusters:
        return "_No duplicate candidates._"
    parts = []
    for cluster in clusters[:MAX_SHOWN]:
        parts.append(f"\n### {note_link(cluster.canonical, cluster.canonical_title)}")
        parts.append(f"Canonical note ({cluster.reason}); possible duplicates:")
        for d in cluster.duplicates:
            parts.append(
                f"- {note_link(d.path, d.title)} — `{d.path}` (similarity {d.similarity:.1%})"
            )
    more = _more(len(clusters), "clusters", "vaultctx brain duplicates --json")
    return _listed(
        parts, more, "Nothing is merged or deleted; `vaultctx review duplicates` records them."
    )


def render_queue(notes: Sequence[QueuedNote]) -> str:
    if not notes:
        return "_Nothing to review: every note was shown in the last 7 days, or is too short._"
    return "\n".join(
        f"{n}. {note_link(q.path, q.title)} — score {q.score:.1f} "
        f"({_count(round(q.days_idle), 'day')} since it {_touched(q)}, "
        f"{_count(q.links, 'link')})"
        for n, q in enumerate(notes, 1)
    )


def _touched(queued: QueuedNote) -> str:
    """What the age counts from: the open, when Obsidian showed one later than the change."""
    if queued.last_opened is not None and queued.days_idle < queued.days_since_change:
        return "was last opened"
    return "changed"


def _listed(parts: list[str], more: str, closing: str) -> str:
    """The report's lines, what was left out of them (``more``, may be empty) and its closing
    sentence, each block apart."""
    return "\n".join(part for part in [*parts, more, "\n" + closing] if part).strip()


def _more(total: int, what: str, command: str) -> str:
    if total <= MAX_SHOWN:
        return ""
    return f"\n_{total - MAX_SHOWN} more {what} not shown here; `{command}` lists all {total}._"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def write_report_note(
    vault: Vault, settings: SecondBrainSettings, report: str, content: str
) -> WrittenReport:
    """``content`` into the report's block of its note in the wiki folder, as one ledger record;
    nothing is written when the block already holds it."""
    wiki = settings.wiki_folder.strip("/")
    folder = vault.path / wiki
    if os.path.lexists(folder) and not folder.is_dir():
        raise WikiFolderError(
            f"the wiki folder {wiki!r} is a file, not a folder; nothing was written",
            "rename that file, or set another wiki_folder under [second_brain] in vaultctx.toml",
        )
    path = f"{wiki}/{REPORT_NOTES[report].name}.md"
    context = ChangeContext(f"brain {report}: {path}", source="cli")
    with vault.change_batch(context, "brain-report") as batch:
        write_report_in(batch, vault, wiki, report, content)
    change = batch.change
    assert change is not None
    return WrittenReport(path, change.record_id, change.notices)


def write_report_in(batch: ChangeBatch, vault: Vault, wiki: str, report: str, content: str) -> str:
    """``content`` into the report's block of its note, as a step of ``batch``; its path."""
    note = REPORT_NOTES[report]
    path = f"{wiki}/{note.name}.md"
    if (vault.path / path).exists():
        batch.rewrite(path, lambda text: upsert_block(text, note.key, content, name=path))
    else:
        batch.create(path, upsert_block(f"# {note.name}\n", note.key, content, name=path))
    return path
