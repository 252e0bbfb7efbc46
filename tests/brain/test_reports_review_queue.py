"""The review queue with an injected clock: the score, the exclusions, the 7-day rule, and its
history file (per vault, outside the vault, bounded, a damaged one started afresh)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.brain.conftest import LONG, indexed_vault
from vaultctx.api import Vault
from vaultctx.brain.reports import review_queue
from vaultctx.brain.review_state import (
    MAX_ENTRIES,
    load_review_state,
    save_review_state,
    state_file,
)

NOW = 1_800_000_000.0
DAY = 86_400.0


def queue_vault(tmp_path: Path) -> Vault:
    notes = {
        "Old.md": LONG,  # 300 days untouched: 10 (the cap), no links
        "Linked.md": LONG + "".join(f" [[L{i}]]" for i in range(1, 7)),  # 30 days: 1 + 5 (cap)
        **{f"L{i}.md": LONG for i in range(1, 7)},  # today, one link each: 1
        "Fresh.md": LONG,  # today, no links: 0, dropped
        "Short.md": "Too short to review.",
        "Second Brain/Wiki.md": LONG,
    }
    handle = indexed_vault(tmp_path, notes)
    ages = {"Old.md": 300, "Linked.md": 30, "Short.md": 400, "Second Brain/Wiki.md": 400}
    for path in notes:
        when = NOW - ages.get(path, 0) * DAY
        os.utime(handle.path / path, (when, when))
    handle.index(fast=True)
    return handle


def paths(vault: Vault, now: float, *, record: bool = True) -> list[str]:
    return [q.path for q in review_queue(vault, clock=lambda: now, record=record).notes]


def test_scores_exclusions_and_the_seven_day_rule(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    first = review_queue(vault, clock=lambda: NOW).notes
    assert [(q.path, q.score, q.links) for q in first] == [
        ("Old.md", 10.0, 0),
        ("Linked.md", 6.0, 6),
        ("L1.md", 1.0, 1),
        ("L2.md", 1.0, 1),
        ("L3.md", 1.0, 1),
    ]
    # A day later the five shown are left out; Fresh has aged a day and scores above 0.
    assert paths(vault, NOW + DAY) == ["L4.md", "L5.md", "L6.md", "Fresh.md"]
    # Just under 7 days after the first showing, everything shown is still left out.
    assert paths(vault, NOW + 7 * DAY - 1) == []
    # Seven days after the first showing, those notes come back (not the ones of day 1).
    assert paths(vault, NOW + 7 * DAY) == ["Old.md", "Linked.md", "L1.md", "L2.md", "L3.md"]


def test_not_recording_leaves_the_history_alone(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    assert paths(vault, NOW, record=False) == paths(vault, NOW, record=False)
    assert not state_file(vault.path).exists()


def test_history_lives_outside_the_vault_and_never_in_notes(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    before = sorted(p.name for p in vault.path.rglob("*"))
    paths(vault, NOW)
    assert sorted(p.name for p in vault.path.rglob("*")) == before
    saved = json.loads(state_file(vault.path).read_text(encoding="utf-8"))
    assert saved["surfaced"] == {p: NOW for p in ["L1.md", "L2.md", "L3.md", "Linked.md", "Old.md"]}
    assert str(state_file(vault.path)).startswith(str(tmp_path / "state"))
    assert state_file(vault.path).stat().st_mode & 0o077 == 0


def test_a_damaged_history_is_started_afresh_with_a_notice(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    path = state_file(vault.path)
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    report = review_queue(vault, clock=lambda: NOW)
    assert [q.path for q in report.notes][:2] == ["Old.md", "Linked.md"]
    assert len(report.notices) == 1 and "starts afresh" in report.notices[0]
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 1


def test_the_history_keeps_the_newest_2000(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    save_review_state(path, {f"n{i}.md": float(i) for i in range(MAX_ENTRIES + 500)})
    kept = load_review_state(path).surfaced
    assert len(kept) == MAX_ENTRIES
    assert min(kept.values()) == 500.0


def test_wrong_shapes_are_reset_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    for text in ('{"version": 1, "surfaced": []}', "[]", '{"version": 2, "surfaced": {}}', "\xff"):
        path.write_text(text, encoding="utf-8")
        state = load_review_state(path)
        assert state.surfaced == {} and len(state.notices) == 1
