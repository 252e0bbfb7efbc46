"""Link suggestions on hand-built vaults: who gets suggestions (orphans and stubs), the cap of
three with ties by path, and what is never suggested (itself, linked notes, wiki notes, notes
without a vector, notes below the threshold)."""

from __future__ import annotations

from pathlib import Path

from tests.brain.conftest import BREAD, KUBE, TIDES, indexed_vault
from vaultctx.brain.reports import link_suggestions

# Four notes of the same title and text (the title is embedded with the text), so equally
# similar to O: the cap keeps the first three by path. Long enough not to be stubs (the static
# model averages its tokens, so the sentence three times is the same vector as once).
SAME = " ".join([KUBE] * 3) + "\n\n[[Hub]]"
TIES = {
    "O.md": KUBE,  # an orphan
    "d/K.md": SAME,
    "c/K.md": SAME,
    "b/K.md": SAME,
    "a/K.md": SAME,
    "Hub.md": " ".join([TIDES] * 3),  # linked to, long: neither orphan nor stub
    "Bread.md": BREAD,  # an orphan like no other note: nothing reaches the threshold
    "Empty.md": "",  # an orphan without a vector: never a source nor a target
    "Second Brain/Kube.md": KUBE,  # the wiki: never suggested, never a source
}


def test_three_best_per_note_ties_by_path(tmp_path: Path) -> None:
    found = link_suggestions(indexed_vault(tmp_path, TIES))
    assert [(s.source, s.target, s.reason) for s in found] == [
        ("O.md", "a/K.md", "orphan"),
        ("O.md", "b/K.md", "orphan"),
        ("O.md", "c/K.md", "orphan"),
    ]
    assert found[0].similarity == found[1].similarity == found[2].similarity
    assert found[0].similarity >= 0.95
    assert found[0].target_title == "K"


def test_linked_notes_either_way_are_never_suggested(tmp_path: Path) -> None:
    notes = {
        "S.md": KUBE + "\n\n[[K1]]",  # a stub: short, and L links to it; it links to K1
        "L.md": KUBE + "\n\n[[S]]",
        "K1.md": SAME,
        "K2.md": SAME,
        "Hub.md": " ".join([TIDES] * 3),
    }
    found = link_suggestions(indexed_vault(tmp_path, notes))
    assert [(s.source, s.target, s.reason) for s in found] == [("S.md", "K2.md", "stub")]


def test_the_threshold_comes_from_the_settings(tmp_path: Path) -> None:
    config = "[second_brain]\nenabled = true\nlink_threshold = 0.3\n"
    found = link_suggestions(indexed_vault(tmp_path, {"A.md": KUBE, "B.md": BREAD}, config))
    assert [(s.source, s.target) for s in found] == [("A.md", "B.md"), ("B.md", "A.md")]
    assert 0.3 <= found[0].similarity < 0.9
