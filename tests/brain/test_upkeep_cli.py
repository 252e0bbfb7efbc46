"""``vaultctx brain run`` and ``vaultctx brain dashboard`` end to end: real processes, a real
index, real files and the real ledger; the dashboard's ``.base`` file parsed as YAML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.brain.conftest import LONG, indexed_vault, run_cli, snapshot
from vaultctx.brain.markers import upsert_block
from vaultctx.brain.settings import SecondBrainSettings, load_second_brain_settings
from vaultctx.config import ConfigError
from vaultctx.review import decision_ledger
from vaultctx.review.brain_scheduler import HOUR, is_due, last_run
from vaultctx.review.dashboard import BASE_NAME, MANAGED_LINE

ON = "[second_brain]\nenabled = true\n"
BASE = f"Second Brain/{BASE_NAME}"
DECISIONS = decision_ledger.render(
    decision_ledger.Ledger(
        [decision_ledger.Decision("Use WAL mode", owner="me", sources=("A.md",))]
    )
)
NOTES = {
    "A.md": "# A\n\n[[Missing idea]] and [[B]]. " + LONG,
    "B.md": "# B\n\nShort.",
    "Second Brain/Decisions.md": upsert_block("# Decision ledger\n", "decisions", DECISIONS),
}


def items(vault: Path) -> dict[str, dict[str, object]]:
    folder = vault / "Second Brain" / "Dashboard"
    return {
        p.name: yaml.safe_load(p.read_text(encoding="utf-8").split("---\n")[1])
        for p in sorted(folder.iterdir())
    }


def test_brain_run_writes_the_five_steps_as_one_record_and_undo_takes_it_back(
    tmp_path: Path,
) -> None:
    handle = indexed_vault(tmp_path, NOTES, ON)
    before = snapshot(handle.path)
    done = run_cli(tmp_path, handle, "brain", "run", "--json")
    assert done.returncode == 0, done.stderr
    steps = json.loads(done.stdout)["steps"]
    assert [s["step"] for s in steps] == [
        "ensure folders",
        "refresh the catalogue",
        "write the gap report",
        "refresh the dashboard",
        "append to the activity log",
    ]
    assert all(s["ok"] for s in steps), steps
    wiki = handle.path / "Second Brain"
    for folder in ("entities", "concepts", "projects"):
        assert (wiki / folder).is_dir()
    assert "Missing idea" in (wiki / "Knowledge Gaps.md").read_text(encoding="utf-8")
    assert "# 📚 Index" in (wiki / "index.md").read_text(encoding="utf-8")
    assert "scheduled upkeep: 4 of 4 steps done" in (wiki / "log.md").read_text("utf-8")

    base = (wiki / BASE_NAME).read_text(encoding="utf-8")
    assert base.splitlines()[0] == MANAGED_LINE
    parsed = yaml.safe_load(base)
    assert [v["name"] for v in parsed["views"]] == [
        "Decision ledger",
        "Open questions",
        "Outdated knowledge",
        "Review queue",
    ]
    assert 'file.inFolder("Second Brain/Dashboard")' in parsed["filters"]["and"]
    kinds = {name: str(fm["dashboard_type"]) for name, fm in items(handle.path).items()}
    assert sorted(set(kinds.values())) == ["decision", "question", "review"]
    decision = next(fm for fm in items(handle.path).values() if fm["dashboard_type"] == "decision")
    assert decision["title"] == "Use WAL mode" and decision["owner"] == "me"
    assert decision["vaultctx_dashboard"] is True and decision["dashboard_active"] is True
    assert last_run(handle.path) > 0

    ledger = run_cli(tmp_path, handle, "ledger", "--json")
    assert [r["label"] for r in json.loads(ledger.stdout)] == ["brain run"]
    undone = run_cli(tmp_path, handle, "undo")
    assert undone.returncode == 0, undone.stderr
    assert snapshot(handle.path) == before


def test_dashboard_keeps_gone_items_inactive_and_writes_nothing_when_current(
    tmp_path: Path,
) -> None:
    handle = indexed_vault(tmp_path, NOTES, ON)
    before = snapshot(handle.path)
    first = run_cli(tmp_path, handle, "brain", "dashboard")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"Dashboard refreshed: {BASE} (")
    undone = run_cli(tmp_path, handle, "undo")
    assert "brain dashboard" in undone.stdout and snapshot(handle.path) == before
    first = run_cli(tmp_path, handle, "brain", "dashboard")
    assert first.returncode == 0, first.stderr
    again = run_cli(tmp_path, handle, "brain", "dashboard")
    assert again.stdout.startswith("Dashboard already current"), again.stdout
    (handle.path / "Second Brain/Decisions.md").write_text("# Decision ledger\n", "utf-8")
    third = run_cli(tmp_path, handle, "brain", "dashboard", "--json")
    assert json.loads(third.stdout)["deactivated"] == 1
    states = [fm["dashboard_active"] for fm in items(handle.path).values()]
    assert states.count(False) == 1 and len(states) == len(list(items(handle.path)))
    # The item notes are the views' data, not wiki notes: the catalogue leaves them out.
    assert run_cli(tmp_path, handle, "brain", "update-index").returncode == 0
    catalogue = (handle.path / "Second Brain" / "index.md").read_text(encoding="utf-8")
    assert "Decisions" in catalogue and "Dashboard/" not in catalogue


def test_brain_run_refuses_while_the_second_brain_is_off(tmp_path: Path) -> None:
    handle = indexed_vault(tmp_path, NOTES, "[second_brain]\nscheduler = true\n")
    for command in ("run", "dashboard"):
        done = run_cli(tmp_path, handle, "brain", command)
        assert done.returncode == 2 and "Second Brain is turned off" in done.stderr
    assert not (handle.path / "Second Brain" / "log.md").exists()


def test_the_scheduler_is_due_only_when_on_and_after_its_interval() -> None:
    on = SecondBrainSettings(enabled=True, scheduler=True, scheduler_interval_hours=2)
    assert is_due(on, 0.0, 1.0)  # never ran: now
    assert not is_due(on, 1000.0, 1000.0 + 2 * HOUR - 1)
    assert is_due(on, 1000.0, 1000.0 + 2 * HOUR)
    assert not is_due(SecondBrainSettings(enabled=True), 0.0, 1e9)  # the scheduler is off
    assert not is_due(SecondBrainSettings(scheduler=True), 0.0, 1e9)  # the Second Brain is off


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", 1), ("24", 24), ("2.4", 2), ("0", None), ("0.5", None), ('"24"', None), ("true", None)],
)
def test_the_interval_setting_is_checked(tmp_path: Path, value: str, expected: int | None) -> None:
    (tmp_path / "vaultctx.toml").write_text(
        f"[second_brain]\nscheduler_interval_hours = {value}\n", encoding="utf-8"
    )
    if expected is None:
        with pytest.raises(ConfigError, match="scheduler_interval_hours must be a number of hours"):
            load_second_brain_settings(tmp_path, tmp_path / "none")
    else:
        settings = load_second_brain_settings(tmp_path, tmp_path / "none")
        assert settings.scheduler_interval_hours == expected and settings.scheduler is False
