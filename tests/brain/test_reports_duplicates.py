"""Duplicate candidates on hand-built vaults: title buckets (whole titles, then words; 2–8
notes), the seed and the canonical note, one cluster per note, and the ordering."""

from __future__ import annotations

from pathlib import Path

from tests.brain.conftest import BREAD, KUBE, TIDES, indexed_vault
from vaultctx.brain.duplicates import title_words
from vaultctx.brain.reports import duplicates

KUBES = " ".join([KUBE] * 3)
NOTES = {
    # Same title "Plan": the seed is notes/Plan.md (first path), the canonical old/Plan.md (the
    # only one with a link); zz/Plan.md says something else and stays out.
    "notes/Plan.md": KUBES,
    "old/Plan.md": KUBES + "\n\n[[Hub]]",
    "z/Plan.md": KUBES,
    "zz/Plan.md": BREAD,
    # Shares the word "plan"; in that bucket only it (the seed now) and zz/Plan.md are left,
    # and they are not alike: no cluster.
    "x/Project Plan.md": KUBES,
    # Titles sharing a word: a similar-title cluster; the larger file is canonical.
    "Tides Guide.md": " ".join([TIDES] * 2),
    "Tides Notes.md": " ".join([TIDES] * 3),
    "Hub.md": "# Hub\n\nNothing much.",
    # The wiki folder is never compared.
    "Second Brain/Plan.md": KUBES,
    # Nine notes sharing the word "log": a bucket over 8 is not examined.
    **{f"Log {i}.md": BREAD for i in range(1, 10)},
}


def test_clusters_canonical_and_order(tmp_path: Path) -> None:
    found = duplicates(indexed_vault(tmp_path, NOTES))
    assert [(c.canonical, c.reason, [d.path for d in c.duplicates]) for c in found] == [
        ("old/Plan.md", "same-title", ["notes/Plan.md", "z/Plan.md"]),
        ("Tides Notes.md", "similar-title", ["Tides Guide.md"]),
    ]
    assert all(d.similarity >= 0.97 for c in found for d in c.duplicates)


def test_title_words_ignore_case_and_punctuation() -> None:
    assert title_words("Get-Help: the_Basics (v2)") == ["get", "help", "the", "basics", "v2"]
