"""The Second Brain's similarity thresholds, measured on our own vectors (docs/benchmarks.md,
"Second Brain thresholds").

Run: .venv/bin/python bench/brain_thresholds.py
Indexes (pass 1, cached under $VAULTCTX_BENCH_CACHE; the vaults are only read) the Obsidian Help
vault and the PowerShell docs, and compares notes as the reports do: (cosine + 1) / 2 between the
stored static vectors of their first chunks.

- links: every unordered pair of notes is a candidate; the pairs that actually link (either way)
  are the positives. For each threshold: precision (linked pairs among all pairs at or above
  it), recall (linked pairs at or above it, of all linked pairs), and how many pairs would be
  suggested per note.
- duplicates: the pairs the report compares (notes sharing a title bucket of 2–8 notes), with
  positives decided from the text alone, not the vectors: the same title (normalised) and word
  5-shingle Jaccard >= 0.6 between the notes' indexed texts (copies of a page for another
  product version, a localised copy). Precision and recall per threshold as above.
Random pairs give the background distribution of both.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np

from corpora import CACHE, SHARED_DATA, powershell_corpus
from vaultctx.api import Vault
from vaultctx.brain.duplicates import title_buckets, title_words
from vaultctx.brain.note_vectors import NoteVectors, load_note_vectors
from vaultctx.brain.vault_facts import VaultFacts, load_vault_facts
from vaultctx.index.brain_queries import ordered_chunk_texts
from vaultctx.index.db import open_index

LINK_THRESHOLDS = [0.70, 0.75, 0.80, 0.82, 0.84, 0.86, 0.87, 0.88, 0.89, 0.90, 0.91, 0.92, 0.94]
DUPLICATE_THRESHOLDS = [0.90, 0.94, 0.96, 0.97, 0.98, 0.985, 0.99, 0.995]
# The rules the defaults were chosen by (docs/benchmarks.md): a link suggestion should be a pair
# the author would have linked at least 40% of the time on the densely linked Obsidian Help
# vault; a duplicate candidate should be a real duplicate 95% of the time on the PowerShell docs.
LINK_PRECISION = 0.40
DUPLICATE_PRECISION = 0.95
SHINGLE_JACCARD = 0.6
RANDOM_PAIRS = 20_000


def indexed(name: str, vault: Path) -> Vault:
    handle = Vault(vault, db=CACHE / f"brain-{name}.db")
    handle.index(fast=True)
    return handle


def percentiles(values: Sequence[float]) -> str:
    if not values:
        return "(none)"
    q = statistics.quantiles(values, n=20) if len(values) > 1 else [values[0]] * 19
    return (
        f"n={len(values)} p5 {q[0]:.3f} p25 {q[4]:.3f} median {statistics.median(values):.3f} "
        f"p75 {q[14]:.3f} p95 {q[18]:.3f}"
    )


def random_pairs(vectors: NoteVectors, count: int) -> list[float]:
    rng = random.Random(14)
    n = len(vectors.ids)
    pairs = ((rng.randrange(n), rng.randrange(n)) for _ in range(count))
    return [vectors.similarity(a, b) for a, b in pairs if a != b]


def pairs_at_or_above(vectors: NoteVectors, thresholds: Sequence[float]) -> list[int]:
    """Unordered pairs of distinct notes at or above each threshold (blocked, never n × n)."""
    counts = np.zeros(len(thresholds), dtype=np.int64)
    edges = np.array(thresholds, dtype=np.float32)
    for block, sims in vectors.similarity_blocks(list(range(len(vectors.ids)))):
        for position, row in enumerate(block):
            upper = sims[position, row + 1 :]
            counts += (upper[:, None] >= edges[None, :]).sum(axis=0)
    return [int(c) for c in counts]


def link_report(name: str, facts: VaultFacts, vectors: NoteVectors) -> float | None:
    """Prints the distributions and the curve; returns the lowest threshold whose precision
    reaches ``LINK_PRECISION``."""
    row_of = vectors.rows()
    linked = {
        (min(a, b), max(a, b))
        for a, targets in facts.outlinks.items()
        for b in targets
        if a in row_of and b in row_of
    }
    linked_sims = [vectors.similarity(row_of[a], row_of[b]) for a, b in linked]
    print(f"[{name}] notes with a vector: {len(vectors.ids)}")
    print(f"[{name}] linked pairs:  {percentiles(linked_sims)}")
    print(f"[{name}] random pairs:  {percentiles(random_pairs(vectors, RANDOM_PAIRS))}")
    totals = pairs_at_or_above(vectors, LINK_THRESHOLDS)
    chosen = None
    for threshold, total in zip(LINK_THRESHOLDS, totals, strict=True):
        hits = sum(1 for s in linked_sims if s >= threshold)
        precision = hits / total if total else float("nan")
        recall = hits / len(linked_sims) if linked_sims else float("nan")
        per_note = 2 * total / max(len(vectors.ids), 1)
        if chosen is None and precision >= LINK_PRECISION:
            chosen = threshold
        print(
            f"[{name}] links >= {threshold:.2f}: precision {precision:.3f} recall {recall:.3f} "
            f"({total} pairs, {per_note:.2f} per note)"
        )
    return chosen


def shingles(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.casefold())
    return {tuple(words[i : i + 5]) for i in range(max(len(words) - 4, 1))}


def note_texts(db_path: Path) -> dict[int, str]:
    """note id → its indexed text (chunks joined), for the text-only duplicate labels."""
    db = open_index(db_path, readonly=True)
    try:
        parts: dict[int, list[str]] = {}
        for note_id, text in ordered_chunk_texts(db):
            parts.setdefault(note_id, []).append(text)
        return {note_id: "\n".join(texts) for note_id, texts in parts.items()}
    finally:
        db.close()


def duplicate_report(
    name: str, facts: VaultFacts, vectors: NoteVectors, db_path: Path
) -> float | None:
    """Prints the distributions and the curve; returns the lowest threshold whose precision
    reaches ``DUPLICATE_PRECISION`` (None when no pair is a duplicate)."""
    row_of = vectors.rows()
    texts = note_texts(db_path)
    cache: dict[int, set[tuple[str, ...]]] = {}
    seen: set[tuple[int, int]] = set()
    labelled: list[tuple[float, bool]] = []
    for _, bucket in title_buckets(list(facts.notes.values())):
        for a, b in combinations([n for n in bucket if n.id in row_of], 2):
            key = (min(a.id, b.id), max(a.id, b.id))
            if key in seen:
                continue
            seen.add(key)
            same_title = title_words(a.title) == title_words(b.title)
            sa = cache.setdefault(a.id, shingles(texts.get(a.id, "")))
            sb = cache.setdefault(b.id, shingles(texts.get(b.id, "")))
            jaccard = len(sa & sb) / len(sa | sb) if sa | sb else 0.0
            duplicate = same_title and jaccard >= SHINGLE_JACCARD
            labelled.append((vectors.similarity(row_of[a.id], row_of[b.id]), duplicate))
    positives = [s for s, d in labelled if d]
    print(f"[{name}] pairs in title buckets: {len(labelled)}, duplicates by text: {len(positives)}")
    print(f"[{name}] duplicate pairs:     {percentiles(positives)}")
    print(f"[{name}] non-duplicate pairs: {percentiles([s for s, d in labelled if not d])}")
    chosen = None
    for threshold in DUPLICATE_THRESHOLDS:
        above = [d for s, d in labelled if s >= threshold]
        hits = sum(above)
        precision = hits / len(above) if above else float("nan")
        recall = hits / len(positives) if positives else float("nan")
        if chosen is None and positives and precision >= DUPLICATE_PRECISION:
            chosen = threshold
        print(
            f"[{name}] duplicates >= {threshold:.3f}: precision {precision:.3f} "
            f"recall {recall:.3f} ({len(above)} pairs)"
        )
    return chosen


def main() -> None:
    corpora = {
        "obsidian-help": SHARED_DATA / "obsidian-help" / "en",
        "powershell": powershell_corpus(),
    }
    for name, vault in corpora.items():
        handle = indexed(name, vault)
        facts = load_vault_facts(handle.path, handle.db_path, "")
        vectors = load_note_vectors(handle.db_path, facts.notes)
        chosen = link_report(name, facts, vectors)
        print(f"[{name}] lowest link threshold with precision >= {LINK_PRECISION}: {chosen}")
        chosen = duplicate_report(name, facts, vectors, handle.db_path)
        print(
            f"[{name}] lowest duplicate threshold with precision >= {DUPLICATE_PRECISION}: {chosen}"
        )
        handle.close()


if __name__ == "__main__":
    main()
