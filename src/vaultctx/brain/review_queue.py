"""The review queue (docs/second-brain.md#reports-without-a-model): five notes worth reading
again, the long-untouched and well-connected first.

score = min(days idle / 30, 10) + min(its backlinks + outlinks, 5), where a note is idle since
it was last opened in Obsidian (brain/obsidian_opens.py) or last changed (its modification time
as the index recorded it), whichever is later: a note edited elsewhere since it was opened was not
forgotten. Notes under 200 characters, wiki notes, notes with score 0 and notes shown in the last
7 days are left out; ties go by path.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    days_idle: float  # the age the score uses: since the later of the last change and open
    last_opened: float | None = None  # epoch seconds: the plugin's record or Obsidian's list

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def review_queue(
    facts: VaultFacts,
    surfaced: dict[str, float],
    now: float,
    size: int = QUEUE_SIZE,
    opened: Mapping[str, float] | None = None,
) -> list[QueuedNote]:
    """The ``size`` best notes at ``now`` (epoch seconds); ``surfaced`` maps path → when shown,
    ``opened`` path → when last opened."""
    recent = now - NOT_AGAIN_WITHIN_DAYS * _DAY
    opens = opened or {}
    queued = []
    for note in facts.notes.values():
        if note.text_chars < MIN_CHARS or surfaced.get(note.path, float("-inf")) > recent:
            continue
        changed = note.mtime_ns / 1e9
        last_open = opens.get(note.path)
        idle = max(0.0, now - max(changed, last_open or changed)) / _DAY
        links = facts.link_count(note.id)
        score = min(idle / 30, 10.0) + min(links, 5)
        if score > 0:
            days = round(max(0.0, now - changed) / _DAY, 2)
            queued.append(
                QueuedNote(
                    note.path, note.title, round(score, 4), days, links, round(idle, 2), last_open
                )
            )
    queued.sort(key=lambda q: (-q.score, q.path))
    return queued[:size]
