"""The knowledge-gap report (docs/second-brain.md#reports-without-a-model): where the vault's web
of notes is thin. Four kinds, each weighted so the most useful gaps come first:

- missing: a link target no note answers (weight 3 + the number of links to it); a missing
  image, PDF or other attachment is a broken link but no gap in knowledge, and is left out;
- stub: a note others link to whose text is under 200 characters (2 + its backlinks);
- orphan: a note with no link in or out (1 + its size in bytes / 1000, at most 5 more);
- one-way: A links to B and B does not link back (1).

Ranked by weight (highest first), then kind in that order, then name; the top 20 are kept.
Nothing is fixed: the report only points.
"""

from __future__ import annotations

import posixpath
from dataclasses import asdict, dataclass
from typing import Any, Literal

from vaultctx.brain.vault_facts import VaultFacts
from vaultctx.brain.wikilinks import link_target
from vaultctx.citations import ATTACHMENT_SUFFIXES

GapKind = Literal["missing", "stub", "orphan", "one-way"]
KINDS: tuple[GapKind, ...] = ("missing", "stub", "orphan", "one-way")
STUB_BELOW_CHARS = 200
MAX_GAPS = 20
_MISSING_SOURCES_SHOWN = 3


@dataclass(frozen=True)
class Gap:
    kind: GapKind
    name: str  # the missing target as first written, or the note's path
    weight: float
    detail: str
    title: str = ""  # the note's title (stub, orphan, one-way)
    target: str = ""  # one-way: the note linked to
    target_title: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def stub_ids(facts: VaultFacts) -> list[int]:
    """Notes with a backlink whose indexed text is under 200 characters."""
    return [
        note.id
        for note in facts.notes.values()
        if facts.backlinks.get(note.id) and note.text_chars < STUB_BELOW_CHARS
    ]


def orphan_ids(facts: VaultFacts) -> list[int]:
    """Notes with no link to or from another note (outside the wiki folder)."""
    return [
        note.id
        for note in facts.notes.values()
        if not facts.outlinks.get(note.id) and not facts.backlinks.get(note.id)
    ]


def all_gaps(facts: VaultFacts) -> list[Gap]:
    """Every gap, ranked."""
    gaps = [*_missing(facts), *_stubs(facts), *_orphans(facts), *_one_way(facts)]
    gaps.sort(key=lambda gap: (-gap.weight, KINDS.index(gap.kind), gap.name, gap.target))
    return gaps


def knowledge_gaps(facts: VaultFacts, limit: int = MAX_GAPS) -> list[Gap]:
    """The ``limit`` heaviest gaps."""
    return all_gaps(facts)[:limit]


def _missing(facts: VaultFacts) -> list[Gap]:
    """One gap per missing target, however it is capitalised or whichever folder links to it."""
    spelled: dict[str, str] = {}
    references: dict[str, int] = {}
    sources: dict[str, list[str]] = {}
    for link in facts.broken:
        if posixpath.splitext(link.target)[1].lower() in ATTACHMENT_SUFFIXES:
            continue
        name = link_target(link.target)  # [[Plan]] and [x](Plan.md) name one note
        key = name.casefold()
        spelled.setdefault(key, name)
        references[key] = references.get(key, 0) + 1
        linking = sources.setdefault(key, [])
        if link.source not in linking:
            linking.append(link.source)
    gaps = []
    for key, count in references.items():
        shown = sorted(sources[key])
        more = len(shown) - _MISSING_SOURCES_SHOWN
        listed = ", ".join(shown[:_MISSING_SOURCES_SHOWN]) + (
            f" and {more} more" if more > 0 else ""
        )
        times = "1 link" if count == 1 else f"{count} links"
        gaps.append(
            Gap("missing", spelled[key], 3.0 + count, f"{times}, from {listed}; no such note")
        )
    return gaps


def _stubs(facts: VaultFacts) -> list[Gap]:
    gaps = []
    for note_id in stub_ids(facts):
        note = facts.notes[note_id]
        backlinks = len(facts.backlinks[note_id])
        linked = "1 note links" if backlinks == 1 else f"{backlinks} notes link"
        detail = f"{linked} here, but it holds only {note.text_chars} characters"
        gaps.append(Gap("stub", note.path, 2.0 + backlinks, detail, note.title))
    return gaps


def _orphans(facts: VaultFacts) -> list[Gap]:
    gaps = []
    for note_id in orphan_ids(facts):
        note = facts.notes[note_id]
        weight = 1.0 + min(note.size / 1000, 5.0)
        detail = f"no links in or out ({note.size} bytes)"
        gaps.append(Gap("orphan", note.path, round(weight, 3), detail, note.title))
    return gaps


def _one_way(facts: VaultFacts) -> list[Gap]:
    gaps = []
    for source, targets in facts.outlinks.items():
        for target in targets:
            if source in facts.outlinks.get(target, ()):
                continue
            a, b = facts.notes[source], facts.notes[target]
            detail = "links to it, but it does not link back"
            gaps.append(Gap("one-way", a.path, 1.0, detail, a.title, b.path, b.title))
    return gaps
