"""The review queue (docs/second-brain.md#reports-without-a-model): five notes worth reading
again, the long-untouched and well-connected first.

score = min(days since the note last changed / 30, 10) + min(its backlinks + outlinks, 5).
The plugin this follows measures from when a note was last opened; vaultctx does not watch what
the user opens, so the age is from the note's modification time as the index recorded it. Notes
under 200 characters, wiki notes, notes with score 0 and notes shown in the last 7 days are left
out; ties go by path.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from vaultctx.brain.vault_facts import VaultFacts

QUEUE_SIZE = 5
MIN_CHARS = 200
NOT_AGAIN_WITHIN_DAYS = 7
_DAY = 86_400.0


@dataclass(frozen=True)
class QueuedNote:
    path: str
    title: str
    score: float
    days_since_change: float
    links: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def review_queue(
    facts: VaultFacts, surfaced: dict[str, float], now: float, size: int = QUEUE_SIZE
) -> list[QueuedNote]:
    """The ``size`` best notes at ``now`` (epoch seconds); ``surfaced`` maps path → when shown."""
    recent = now - NOT_AGAIN_WITHIN_DAYS * _DAY
    queued = []
    for note in facts.notes.values():
        if note.text_chars < MIN_CHARS or surfaced.get(note.path, float("-inf")) > recent:
            continue
        days = max(0.0, now - note.mtime_ns / 1e9) / _DAY
        links = facts.link_count(note.id)
        score = min(days / 30, 10.0) + min(links, 5)
        if score > 0:
            queued.append(QueuedNote(note.path, note.title, round(score, 4), round(days, 2), links))
    queued.sort(key=lambda q: (-q.score, q.path))
    return queued[:size]
