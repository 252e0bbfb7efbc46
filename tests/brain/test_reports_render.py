"""The reports as markdown, exactly as --write puts them into their notes."""

from __future__ import annotations

from vaultctx.brain.duplicates import Duplicate, DuplicateCluster
from vaultctx.brain.gaps import Gap
from vaultctx.brain.link_suggestions import LinkSuggestion
from vaultctx.brain.report_notes import render_duplicates, render_gaps, render_links, render_queue
from vaultctx.brain.review_queue import QueuedNote


def test_gaps_in_group_order() -> None:
    gaps = [
        Gap("orphan", "C.md", 3.5, "no links in or out (2500 bytes)", "C"),
        Gap("missing", "Plan", 6.0, "3 links, from A.md; no such note"),
        Gap("one-way", "a/A.md", 1.0, "…", "Alpha", "B.md", "B"),
        Gap("stub", "B.md", 3.0, "1 note links here, but it holds only 11 characters", "B"),
    ]
    assert render_gaps(gaps) == (
        "The 4 heaviest gaps; nothing is fixed automatically.\n\n"
        "### Missing notes\n- [[Plan]] — 3 links, from A.md; no such note\n\n"
        "### Stubs\n- [[B]] — 1 note links here, but it holds only 11 characters\n\n"
        "### Orphans\n- [[C]] — no links in or out (2500 bytes)\n\n"
        "### One-way links\n- [[a/A|Alpha]] — links to [[B]], which does not link back"
    )
    assert render_gaps([]) == "_No knowledge gaps found._"


def test_links_grouped_by_source() -> None:
    suggestions = [
        LinkSuggestion("O.md", "O", "a/K.md", "K", 0.9712, "orphan"),
        LinkSuggestion("O.md", "O", "b|c.md", "K", 0.9, "orphan"),
        LinkSuggestion("S.md", "Stub", "K.md", "K", 0.95, "stub"),
    ]
    assert render_links(suggestions) == (
        "### [[O]] (orphan)\n- [[a/K|K]] (similarity 97.1%)\n- [K](b%7Cc.md) (similarity 90.0%)\n"
        "\n### [[S|Stub]] (stub)\n- [[K]] (similarity 95.0%)\n"
        "\nApply them with `vaultctx review links`."
    )


def test_duplicates_and_queue() -> None:
    cluster = DuplicateCluster(
        "old/Plan.md", "Plan", "same-title", [Duplicate("x/Plan.md", "Plan", 0.997)]
    )
    assert render_duplicates([cluster]) == (
        "### [[old/Plan|Plan]]\nCanonical note (same-title); possible duplicates:\n"
        "- [[x/Plan|Plan]] — `x/Plan.md` (similarity 99.7%)\n"
        "\nNothing is merged or deleted; `vaultctx review duplicates` records them."
    )
    queue = [
        QueuedNote("Old.md", "Old", 10.0, 300.0, 0, 300.0),
        QueuedNote("L.md", "L", 1.03, 1.0, 1, 1.0, 1.0),  # opened before it changed: the change
        QueuedNote("Read.md", "Read", 2.0, 400.0, 0, 60.0, 1.0),  # opened since it changed
    ]
    assert render_queue(queue) == (
        "1. [[Old]] — score 10.0 (300 days since it changed, 0 links)\n"
        "2. [[L]] — score 1.0 (1 day since it changed, 1 link)\n"
        "3. [[Read]] — score 2.0 (60 days since it was last opened, 0 links)"
    )


def test_long_reports_show_the_first_100_and_say_how_many_more() -> None:
    clusters = [
        DuplicateCluster(f"n{i:03}.md", "T", "same-title", [Duplicate(f"d{i:03}.md", "T", 1.0)])
        for i in range(103)
    ]
    text = render_duplicates(clusters)
    assert text.count("### ") == 100 and "[[n099|T]]" in text and "n100" not in text
    assert (
        "_3 more clusters not shown here; `vaultctx brain duplicates --json` lists all 103._"
        in text
    )
    suggestions = [
        LinkSuggestion(f"s{i:03}.md", "S", f"t{j}.md", "T", 0.95, "orphan")
        for i in range(101)
        for j in range(2)
    ]
    text = render_links(suggestions)
    assert text.count("### ") == 100 and text.count("- [[t0|T]]") == 100
    assert "_1 more notes not shown here; `vaultctx brain links --json` lists all 101._" in text
