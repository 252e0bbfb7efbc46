"""The Bases dashboard never overwrites a ``.base`` file the user made: a file (or a link, or a
folder) at ``{wiki}/vaultctx Dashboard.base`` whose first line is not the managed line stops the
refresh before it writes anything; the scheduled run reports the step failed, leaves the file
byte for byte, and still does the other steps."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.brain.conftest import indexed_vault, run_cli, snapshot
from vaultctx.review.dashboard import BASE_NAME, MANAGED_LINE

ON = "[second_brain]\nenabled = true\n"
MINE = "# my own dashboard\nviews:\n  - type: table\n    name: Mine\n"
NOTES = {"A.md": "# A\n\n[[Nowhere]]\n", f"Second Brain/{BASE_NAME}": MINE}


@pytest.mark.parametrize(
    "first_line", ["# my own dashboard", f" {MANAGED_LINE}", f"{MANAGED_LINE} extra"]
)
def test_a_users_base_file_stops_the_dashboard_before_any_write(
    tmp_path: Path, first_line: str
) -> None:
    text = MINE.replace("# my own dashboard", first_line)
    handle = indexed_vault(tmp_path, {**NOTES, f"Second Brain/{BASE_NAME}": text}, ON)
    before = snapshot(handle.path)
    done = run_cli(tmp_path, handle, "brain", "dashboard")
    assert done.returncode == 2, done.stdout
    assert "is not the dashboard vaultctx manages" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(handle.path) == before
    assert json.loads(run_cli(tmp_path, handle, "ledger", "--json").stdout) == []


def test_the_scheduled_run_leaves_the_users_file_and_does_the_rest(tmp_path: Path) -> None:
    handle = indexed_vault(tmp_path, NOTES, ON)
    done = run_cli(tmp_path, handle, "brain", "run", "--json")
    assert done.returncode == 0, done.stderr
    steps = {s["step"]: s for s in json.loads(done.stdout)["steps"]}
    assert steps["refresh the dashboard"]["ok"] is False
    assert "not the dashboard vaultctx manages" in steps["refresh the dashboard"]["detail"]
    assert steps["write the gap report"]["ok"] is True
    assert (handle.path / "Second Brain" / BASE_NAME).read_text(encoding="utf-8") == MINE
    assert not (handle.path / "Second Brain" / "Dashboard").exists()


def test_a_link_at_the_dashboards_name_is_refused_and_its_target_untouched(
    tmp_path: Path,
) -> None:
    handle = indexed_vault(tmp_path, {"A.md": "# A\n"}, ON)
    outside = tmp_path / "outside.base"
    outside.write_text(f"{MANAGED_LINE}\nkeep: me\n", encoding="utf-8")
    (handle.path / "Second Brain").mkdir()
    os.symlink(outside, handle.path / "Second Brain" / BASE_NAME)
    done = run_cli(tmp_path, handle, "brain", "dashboard")
    assert done.returncode == 2
    assert outside.read_text(encoding="utf-8") == f"{MANAGED_LINE}\nkeep: me\n"
    assert os.path.islink(handle.path / "Second Brain" / BASE_NAME)
