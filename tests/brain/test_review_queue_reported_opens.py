"""The review queue goes by the opens the Obsidian plugin reports (brain/reported_opens.py) when
it has them, with Obsidian's ``workspace.json`` and the modification time as before: a note's
idle time counts from the latest of its reported open, its listed open and its last change."""

from __future__ import annotations

import json
from pathlib import Path

from tests.brain.test_reports_review_queue import DAY, NOW, queue_vault
from tests.brain.test_review_queue_opens import open_in_obsidian, queue
from vaultctx.api import Vault
from vaultctx.brain.reported_opens import load_reported_opens, opens_file, record_reported_opens
from vaultctx.brain.reports import latest, review_queue
from vaultctx.vault.scanner import load_ignore_rules


def report(vault: Vault, opens: list[tuple[str, float]], now: float = NOW) -> int:
    """What the plugin's ``opens`` action does with a report (times in ms, as Date.now())."""
    rules, _ = load_ignore_rules(vault.path)
    body = [{"path": path, "at": when * 1000} for path, when in opens]
    return record_reported_opens(vault.path, rules, body, now).recorded


def test_a_reported_open_orders_the_queue(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    assert queue(vault, NOW)[:2] == [("Old.md", 10.0), ("Linked.md", 6.0)]
    assert report(vault, [("Old.md", NOW - 3 * DAY)]) == 1
    shown = review_queue(vault, clock=lambda: NOW, record=False).notes
    assert "Old.md" not in [q.path for q in shown]  # 3 days idle, no links: 0.1, below the five
    # Linked was changed 30 days ago; reported opened 15 days ago it scores 0.5 + 5.
    report(vault, [("Linked.md", NOW - 15 * DAY)])
    linked = next(q for q in review_queue(vault, clock=lambda: NOW).notes if q.path == "Linked.md")
    assert (linked.days_idle, linked.days_since_change, linked.score) == (15.0, 30.0, 5.5)
    assert linked.last_opened == NOW - 15 * DAY


def test_the_latest_open_of_either_source_counts(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    report(vault, [("Old.md", NOW - 200 * DAY), ("Linked.md", NOW - 10 * DAY)])
    open_in_obsidian(vault, ["Old.md"], NOW - 60 * DAY)  # Obsidian's list: opened later
    notes = {q.path: q for q in review_queue(vault, clock=lambda: NOW, record=False).notes}
    assert notes["Old.md"].days_idle == 60.0  # the list's open, later than the report's
    assert notes["Linked.md"].days_idle == 10.0  # the report's; the list never showed it
    assert latest({"a": 1.0, "b": 5.0}, {"a": 3.0}) == {"a": 3.0, "b": 5.0}


def test_an_open_before_the_last_change_does_not_make_a_note_older(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    report(vault, [("Linked.md", NOW - 100 * DAY)])  # changed 30 days ago
    notes = {q.path: q for q in review_queue(vault, clock=lambda: NOW, record=False).notes}
    assert notes["Linked.md"].days_idle == 30.0


def test_opens_are_kept_outside_the_vault_per_path_newest_first(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    report(vault, [("Old.md", NOW - 5 * DAY), ("Old.md", NOW - DAY), ("L1.md", NOW - 2 * DAY)])
    where = opens_file(vault.path)
    assert vault.path not in where.parents and where.name.endswith("-opens.json")
    record = load_reported_opens(where)
    assert record.opens == {"L1.md": [NOW - 2 * DAY], "Old.md": [NOW - DAY, NOW - 5 * DAY]}
    assert record.last_opened() == {"L1.md": NOW - 2 * DAY, "Old.md": NOW - DAY}
    assert json.loads(where.read_text(encoding="utf-8"))["version"] == 1


def test_a_damaged_record_leaves_the_queue_working_with_a_notice(tmp_path: Path) -> None:
    vault = queue_vault(tmp_path)
    where = opens_file(vault.path)
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text("{not json", encoding="utf-8")
    shown = review_queue(vault, clock=lambda: NOW, record=False)
    assert shown.notes[0].path == "Old.md"
    assert any("could not be read" in notice for notice in shown.notices)
    assert report(vault, [("Old.md", NOW - DAY)]) == 1  # started afresh
    assert load_reported_opens(where).last_opened() == {"Old.md": NOW - DAY}


def test_brain_opens_lists_and_clears_the_record_through_the_cli(tmp_path: Path) -> None:
    import time

    from tests.brain.conftest import run_cli

    vault = queue_vault(tmp_path)
    now = time.time()
    report(vault, [("Old.md", now - DAY), ("L1.md", now - 2 * DAY)], now)
    listed = run_cli(tmp_path, vault, "brain", "opens", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert [n["path"] for n in data["notes"]] == ["Old.md", "L1.md"]
    assert data["file"] == str(opens_file(vault.path))
    text = run_cli(tmp_path, vault, "brain", "opens")
    assert "2 notes reported opened" in text.stdout and "Old.md" in text.stdout
    cleared = run_cli(tmp_path, vault, "brain", "opens", "--clear")
    assert cleared.returncode == 0 and "forgot the reported opens" in cleared.stdout
    assert not opens_file(vault.path).exists()
    assert review_queue(vault, clock=lambda: now, record=False).notes[0].path == "Old.md"


def test_the_dashboards_review_view_goes_by_the_reported_opens(tmp_path: Path) -> None:
    import time

    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.review.dashboard import wanted_items

    vault = queue_vault(tmp_path)
    settings = load_second_brain_settings(vault.path)

    def reviewed() -> str:
        items = wanted_items(vault, settings)
        return "".join(text for name, text in items.items() if name.startswith("review"))

    assert "[[Old" in reviewed()
    report(vault, [("Old.md", time.time() - DAY)], time.time())
    assert "[[Old" not in reviewed() and "[[Linked" in reviewed()
