"""Link suggestions (docs/second-brain.md#reports-without-a-model): for each note nothing links
to or from (an orphan) and each stub, the notes most like it that it is not yet linked with.

Similarity is between the notes' first-chunk vectors (``note_vectors.py``) and must reach the
link threshold (``[second_brain] link_threshold``, measured in docs/benchmarks.md). At most three
per note, best first (ties by path); notes already linked either way, the note itself, wiki
notes and notes without a vector are never suggested.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from vaultctx.brain.gaps import orphan_ids, stub_ids
from vaultctx.brain.note_vectors import NoteVectors
from vaultctx.brain.vault_facts import VaultFacts

MAX_PER_NOTE = 3
# Rows with more candidates than this above the threshold are cut to their best first.
_SORT_ALL_BELOW = 64


@dataclass(frozen=True)
class LinkSuggestion:
    source: str
    source_title: str
    target: str
    target_title: str
    similarity: float  # (cosine + 1) / 2, rounded to 4 places
    reason: str  # "orphan" or "stub": why the source was looked at

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def link_suggestions(
    facts: VaultFacts, vectors: NoteVectors, threshold: float, per_note: int = MAX_PER_NOTE
) -> list[LinkSuggestion]:
    """Suggestions by source path, then similarity (highest first), then target path."""
    reasons = {note_id: "orphan" for note_id in orphan_ids(facts)}
    reasons.update({note_id: "stub" for note_id in stub_ids(facts)})
    row_of = vectors.rows()
    sources = sorted(
        (row_of[note_id] for note_id in reasons if note_id in row_of),
        key=lambda row: facts.notes[vectors.ids[row]].path,
    )
    if not sources:
        return []
    paths = [facts.notes[note_id].path for note_id in vectors.ids]
    path_rank = np.empty(len(paths), dtype=np.int64)
    path_rank[np.argsort(np.array(paths, dtype=object), kind="stable")] = np.arange(len(paths))
    found: list[LinkSuggestion] = []
    for block, similarities in vectors.similarity_blocks(sources):
        for position, row in enumerate(block):
            scores = similarities[position]
            scores[row] = -1.0
            source_id = vectors.ids[row]
            for other in (*facts.outlinks.get(source_id, ()), *facts.backlinks.get(source_id, ())):
                if other in row_of:
                    scores[row_of[other]] = -1.0
            for target_row in _best(scores, path_rank, threshold, per_note):
                source, target = facts.notes[source_id], facts.notes[vectors.ids[target_row]]
                found.append(
                    LinkSuggestion(
                        source.path,
                        source.title,
                        target.path,
                        target.title,
                        round(float(scores[target_row]), 4),
                        reasons[source_id],
                    )
                )
    return found


def _best(
    scores: np.ndarray[Any, Any], path_rank: np.ndarray[Any, Any], threshold: float, count: int
) -> list[int]:
    """The rows of the ``count`` best scores at or above ``threshold``, ties by path."""
    above = np.flatnonzero(scores >= threshold)
    if len(above) > _SORT_ALL_BELOW:
        cut = np.partition(scores[above], len(above) - count)[len(above) - count]
        above = above[scores[above] >= cut]  # every score tied with the cut stays in
    order = np.lexsort((path_rank[above], -scores[above]))
    return [int(row) for row in above[order][:count]]
