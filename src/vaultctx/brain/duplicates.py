"""Duplicate candidates (docs/second-brain.md#reports-without-a-model): notes that say the same
thing under the same or a similar title, grouped around one canonical note.

Only notes that share a title, or a word of one, are compared: every note is put in a bucket for
its whole normalised title (lower-cased, punctuation made spaces) and one for each title word of
two or more characters; buckets of 2 to 8 notes are examined, whole titles first. In a bucket the
first path is the seed, and the notes at least ``threshold`` similar to it join it. The canonical
note is the one with most links, then the largest file, then the first path; the others are scored
again against it and kept at ``threshold`` or above. A cluster needs a canonical note and one
duplicate, and a note belongs to one cluster at most. Clusters with most duplicates come first.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from vaultctx.brain.note_vectors import NoteVectors
from vaultctx.brain.vault_facts import NoteFacts, VaultFacts

MIN_BUCKET = 2
MAX_BUCKET = 8
MIN_TOKEN_CHARS = 2
_PUNCTUATION = re.compile(r"[^\w\s]|_")

Reason = Literal["same-title", "similar-title"]


@dataclass(frozen=True)
class Duplicate:
    path: str
    title: str
    similarity: float  # to the canonical note, (cosine + 1) / 2, rounded to 4 places


@dataclass(frozen=True)
class DuplicateCluster:
    canonical: str
    canonical_title: str
    reason: Reason
    duplicates: list[Duplicate] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def title_words(title: str) -> list[str]:
    return _PUNCTUATION.sub(" ", title.casefold()).split()


def title_buckets(notes: list[NoteFacts]) -> list[tuple[Reason, list[NoteFacts]]]:
    """Buckets of 2–8 notes: whole titles (sorted), then title words (sorted); members by path."""
    whole: dict[str, list[NoteFacts]] = {}
    words: dict[str, list[NoteFacts]] = {}
    for note in sorted(notes, key=lambda n: n.path):
        tokens = title_words(note.title)
        if not tokens:
            continue
        whole.setdefault(" ".join(tokens), []).append(note)
        for token in dict.fromkeys(tokens):
            if len(token) >= MIN_TOKEN_CHARS:
                words.setdefault(token, []).append(note)
    buckets: list[tuple[Reason, list[NoteFacts]]] = []
    for reason, table in (("same-title", whole), ("similar-title", words)):
        for key in sorted(table):
            if MIN_BUCKET <= len(table[key]) <= MAX_BUCKET:
                buckets.append((reason, table[key]))  # type: ignore[arg-type]
    return buckets


def duplicate_clusters(
    facts: VaultFacts, vectors: NoteVectors, threshold: float
) -> list[DuplicateCluster]:
    row_of = vectors.rows()
    clustered: set[int] = set()
    clusters: list[DuplicateCluster] = []
    for reason, bucket in title_buckets(list(facts.notes.values())):
        members = [n for n in bucket if n.id in row_of and n.id not in clustered]
        if len(members) < MIN_BUCKET:
            continue
        seed = members[0]
        joined = [seed] + [
            n for n in members[1:] if vectors.similarity(row_of[seed.id], row_of[n.id]) >= threshold
        ]
        if len(joined) < MIN_BUCKET:
            continue
        canonical = min(joined, key=lambda n: (-facts.link_count(n.id), -n.size, n.path))
        scored = [
            (n, vectors.similarity(row_of[canonical.id], row_of[n.id]))
            for n in joined
            if n.id != canonical.id
        ]
        kept = sorted(
            ((n, s) for n, s in scored if s >= threshold), key=lambda item: (-item[1], item[0].path)
        )
        if not kept:
            continue
        clustered.add(canonical.id)
        clustered.update(n.id for n, _ in kept)
        duplicates = [Duplicate(n.path, n.title, round(s, 4)) for n, s in kept]
        clusters.append(DuplicateCluster(canonical.path, canonical.title, reason, duplicates))
    clusters.sort(key=lambda c: (-len(c.duplicates), c.canonical))
    return clusters
