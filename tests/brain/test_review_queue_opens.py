"""The review queue goes by when a note was last opened in Obsidian (``.obsidian/
workspace.json``'s ``lastOpenFiles``), or last changed, whichever is later."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.brain.test_reports_review_queue import DAY, NOW, queue_vault
from vaultctx.api import Vault
from vaultctx.brain.obsidian_opens import opened_since
from vaultctx.brain.reports import review_queue
from vaultctx.brain.review_state import load_review_state, state_file


def open_in_obsidian(vault: Vault, paths: list[str], when: float) -> None:
    """What Obsidian leaves behind: the list, most recent first, written at ``when``."""
    folder = vault.path / ".obsidian"
    folder.mkdir(exist_ok=True)
    workspace = folder / "workspace.json"
    layout = {"main": {"id": "1", "type": "split", "children": []}, "active": "1"}
    workspace.write_text(json.dumps({**layout, "lastOpenFiles": paths}), encoding="utf-8")
    os.utime(workspace, (when, when))


def queue(vault: Vault, now: float) -> list[tuple[str, float]]:
    return [(q.path, q.score) for q in review_queue(vault, clock=lambda: now, record=False).notes]


def test_a_note_opened_two_days_ago_is_no_longer_idle(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    assert queue(vault, NOW)[0] == ("Old.md", 10.0)  # 300 days untouched
    open_in_obsidian(vault, ["Old.md"], NOW - 2 * DAY)
    shown = review_queue(vault, clock=lambda: NOW).notes
    old = [q for q in shown if q.path == "Old.md"]
    # Two days idle: 2/30 and no links; below the five others (each at least 1.0).
    assert shown[0].path == "Linked.md" and not old
    assert [q.path for q in shown] == ["Linked.md", "L1.md", "L2.md", "L3.md", "L4.md"]


def test_the_report_says_when_the_age_is_from_an_open(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    open_in_obsidian(vault, ["Linked.md"], NOW - 15 * DAY)  # changed 30 days ago, opened 15
    linked = next(q for q in review_queue(vault, clock=lambda: NOW).notes if q.path == "Linked.md")
    assert (linked.days_idle, linked.days_since_change, linked.score) == (15.0, 30.0, 5.5)
    assert linked.last_opened == NOW - 15 * DAY


def test_an_open_is_dated_once_not_each_time_obsidian_saves_its_layout(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    open_in_obsidian(vault, ["Old.md", "Linked.md"], NOW - 100 * DAY)
    review_queue(vault, clock=lambda: NOW - 100 * DAY + 1)  # the queue saw the list then
    # Obsidian rewrites the file (a pane moved) with the same list: no new open.
    open_in_obsidian(vault, ["Old.md", "Linked.md"], NOW - DAY)
    review_queue(vault, clock=lambda: NOW)
    opened = load_review_state(state_file(vault.path)).opened
    assert opened == {"Old.md": NOW - 100 * DAY, "Linked.md": NOW - 100 * DAY}
    # Now Linked is opened again: it moves to the front, and only it gets the new time.
    open_in_obsidian(vault, ["Linked.md", "Old.md"], NOW + DAY)
    review_queue(vault, clock=lambda: NOW + 2 * DAY)
    opened = load_review_state(state_file(vault.path)).opened
    assert opened == {"Old.md": NOW - 100 * DAY, "Linked.md": NOW + DAY}


def test_a_later_change_wins_over_an_earlier_open(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    open_in_obsidian(vault, ["Old.md"], NOW - 400 * DAY)  # opened before its last change
    assert queue(vault, NOW)[0] == ("Old.md", 10.0)


def test_opened_since_follows_obsidians_move_to_front() -> None:
    assert opened_since([], ["A", "B"]) == ["A", "B"]  # first look: all of the list
    assert opened_since(["A", "B", "C"], ["A", "B", "C"]) == []
    assert opened_since(["A", "B", "C"], ["C", "A", "B"]) == ["C"]
    assert opened_since(["A", "B", "C"], ["A", "C", "B"]) == ["A", "C"]  # C, then A
    assert opened_since(["A", "B", "C"], ["D", "A", "B"]) == ["D"]  # C fell off the end
    assert opened_since(["A", "B"], ["B"]) == ["B"]  # A renamed away, B opened


def test_brain_review_queue_through_the_cli(tmp_path: Path) -> None:
    """``vaultctx brain review-queue`` as a real process, on the real clock: the note opened two
    days ago ranks below one untouched for 100 days, and the report says why."""
    import time

    from tests.brain.conftest import LONG, indexed_vault, run_cli

    now = time.time()
    vault = indexed_vault(tmp_path, {"Old.md": LONG, "Other.md": LONG})
    for path, days in (("Old.md", 300), ("Other.md", 100)):
        os.utime(vault.path / path, (now - days * DAY, now - days * DAY))
    vault.index(fast=True)
    open_in_obsidian(vault, ["Old.md"], now - 2 * DAY)
    result = run_cli(tmp_path, vault, "brain", "review-queue", "--json")
    assert result.returncode == 0, result.stderr
    items = {item["path"]: item for item in json.loads(result.stdout)["items"]}
    assert list(items) == ["Other.md", "Old.md"]
    old = items["Old.md"]
    assert (round(old["days_idle"]), round(old["days_since_change"])) == (2, 300)
    assert abs(old["last_opened"] - (now - 2 * DAY)) < 1
    assert items["Other.md"]["last_opened"] is None
    # The text form says what the age counts from.
    again = indexed_vault(tmp_path / "again", {"Old.md": LONG})
    os.utime(again.path / "Old.md", (now - 300 * DAY, now - 300 * DAY))
    again.index(fast=True)
    open_in_obsidian(again, ["Old.md"], now - 60 * DAY)
    text = run_cli(tmp_path / "again", again, "brain", "review-queue")
    assert "60 days since it was last opened" in text.stdout, text.stdout + text.stderr
