"""The knowledge-gap report on hand-built vaults: every kind, the weights, the wiki folder left
out, the ranking with its ties, and the cap of 20."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.brain.conftest import LONG, indexed_vault
from vaultctx.brain.gaps import Gap
from vaultctx.brain.reports import gaps
from vaultctx.brain.settings import SecondBrainOffError

NOTES = {
    # A links to B (B never back), and twice to a note that does not exist, which G links to
    # lower-cased and as Missing.md: one missing target with 4 references. A missing image is
    # no knowledge gap.
    "A.md": "# A\n\nSee [[B]], [[Missing]] and [[Missing]] again. ![[gone.png]] " + LONG,
    "G.md": "# G\n\nAlso [[missing]] here, and [[A]]. [Again](Missing.md) " + LONG,
    # B: linked to, tiny: a stub (2 + 1 backlink); A -> B is one-way, G -> A too.
    "B.md": "# B\n\nShort.",
    # C: an orphan of 2,500+ characters (weight capped at 1 + 5 only past 5,000).
    "C.md": "# C\n\n" + "x" * 2495,
    # D: an empty orphan: weight exactly 1, tying the one-way links; orphans rank first.
    "D.md": "",
    # E and F link both ways: no gap.
    "E.md": "# E\n\n[[F]] " + LONG,
    "F.md": "# F\n\n[[E]] " + LONG,
    # The wiki folder: its links count for nothing (C stays an orphan, Nowhere is not missing)
    # and its notes are never reported (W is itself unlinked).
    "Second Brain/W.md": "# W\n\n[[C]] [[Nowhere]] [[Second Brain/X]]",
    "Second Brain/X.md": "# X\n\nwiki",
}


def test_every_kind_ranked_by_weight_then_kind_then_path(tmp_path: Path) -> None:
    found = gaps(indexed_vault(tmp_path, NOTES))
    assert [(g.kind, g.name, g.weight) for g in found] == [
        ("missing", "Missing", 7.0),
        ("orphan", "C.md", 3.5),
        ("stub", "B.md", 3.0),
        ("orphan", "D.md", 1.0),
        ("one-way", "A.md", 1.0),
        ("one-way", "G.md", 1.0),
    ]
    missing, _, stub, orphan, one_way, _ = found
    assert missing.detail == "4 links, from A.md, G.md; no such note"
    assert stub.detail == "1 note links here, but it holds only 11 characters"
    assert orphan.detail == "no links in or out (0 bytes)"
    assert (one_way.target, one_way.target_title) == ("B.md", "B")


def test_the_top_20_by_weight(tmp_path: Path) -> None:
    notes = {f"N{i:02}.md": f"# N{i:02}\n\n" + "y" * (100 * i) for i in range(25)}
    found = gaps(indexed_vault(tmp_path, notes))
    assert len(found) == 20
    assert [g.name for g in found] == [f"N{i:02}.md" for i in range(24, 4, -1)]
    assert all(g.kind == "orphan" for g in found)


def test_orphan_weight_caps_at_six(tmp_path: Path) -> None:
    found = gaps(indexed_vault(tmp_path, {"Big.md": "# Big\n\n" + "word " * 3000}))
    assert found == [Gap("orphan", "Big.md", 6.0, found[0].detail, "Big")]


def test_refuses_while_the_second_brain_is_off(tmp_path: Path) -> None:
    vault = indexed_vault(tmp_path, {"A.md": "# A"}, config="[second_brain]\nenabled = false\n")
    with pytest.raises(SecondBrainOffError):
        gaps(vault)
