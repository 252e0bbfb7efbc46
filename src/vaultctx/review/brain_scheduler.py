"""The Second Brain's scheduled upkeep (docs/second-brain.md#scheduled-upkeep): five steps
that need no model and delete nothing, run by hand (``vaultctx brain run``) or by the warm
engine every ``[second_brain] scheduler_interval_hours`` (24 by default) once
``scheduler = true``.

The steps: make sure the wiki's folders exist, refresh the catalogue in index.md, write the
knowledge-gap report, refresh the Bases dashboard, append a line to the activity log. A step
that fails is reported and the others still run; the run is one ledger record, so one ``vaultctx
undo`` takes back all it wrote. The time of the last run is kept per vault in the user's state
dir; a run where every step failed does not count as one (the engine then waits an hour before
trying again, rather than every half hour).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import platformdirs

from vaultctx.atomic_write import write_atomically
from vaultctx.brain import reports
from vaultctx.brain.catalog import update_index_in
from vaultctx.brain.report_notes import render_gaps, write_report_in
from vaultctx.brain.settings import SecondBrainSettings, load_second_brain_settings
from vaultctx.brain.wiki import append_log, enabled_settings, ensure_wiki_folders, vault_root
from vaultctx.config import APP_NAME, default_db_path
from vaultctx.errors import VaultctxError
from vaultctx.ledger.context import ChangeContext
from vaultctx.review.dashboard import refresh_in

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.batch import ChangeBatch
    from vaultctx.ledger.context import Change

HOUR = 3600.0
RUN_LABEL = "brain run"


class StepOutcome(NamedTuple):
    """One step's name, whether it was done, and what it did or why it failed (as JSON, the
    name is ``step``)."""

    step: str
    ok: bool
    detail: str


@dataclass
class UpkeepRun:
    steps: list[StepOutcome] = field(default_factory=list)
    change: Change | None = None

    @property
    def any_ok(self) -> bool:
        """Whether any of the four steps before the log line was done."""
        return any(step.ok for step in self.steps[:4])

    def lines(self) -> list[str]:
        shown = [f"{'ok' if s.ok else 'FAILED'}  {s.step}: {s.detail}" for s in self.steps]
        record = self.change.record_id if self.change else None
        if record:
            shown.append(f"ledger record {record}; `vaultctx undo` reverts the run")
        return shown

    def as_dict(self) -> dict[str, object]:
        return {
            "steps": [step._asdict() for step in self.steps],
            "record_id": self.change.record_id if self.change else None,
        }


def _step(run: UpkeepRun, name: str, action: Callable[[], str]) -> None:
    """One step, its failure kept as its outcome (the next step runs all the same)."""
    try:
        run.steps.append(StepOutcome(name, True, action()))
    except (VaultctxError, OSError) as exc:
        detail = exc.one_line() if isinstance(exc, VaultctxError) else str(exc)
        run.steps.append(StepOutcome(name, False, detail))


def _steps(batch: ChangeBatch, vault: Vault, settings: SecondBrainSettings, run: UpkeepRun) -> None:
    folder = settings.wiki_folder

    def folders() -> str:
        ensure_wiki_folders(batch, folder)
        return f"{folder}/ and its entities, concepts, projects"

    def catalogue() -> str:
        path, notes, written = update_index_in(batch, vault, folder)
        return f"{path}: {notes} note(s)" + ("" if written else ", already current")

    def gaps() -> str:
        found = reports.gaps(vault)
        path = write_report_in(batch, vault, folder, "gaps", render_gaps(found))
        return f"{path}: {len(found)} gap(s)"

    def dashboard() -> str:
        result = refresh_in(batch, vault, settings)
        counts = ", ".join(f"{n} {kind}" for kind, n in result.items.items()) or "no items"
        return f"{result.base}: {counts}"

    _step(run, "ensure folders", folders)
    _step(run, "refresh the catalogue", catalogue)
    _step(run, "write the gap report", gaps)
    _step(run, "refresh the dashboard", dashboard)
    done = sum(step.ok for step in run.steps)
    failed = [step.step for step in run.steps if not step.ok]
    message = f"scheduled upkeep: {done} of 4 steps done" + (
        f" (failed: {', '.join(failed)})" if failed else ""
    )

    def log() -> str:
        append_log(batch, vault_root(vault), folder, message)
        return f"{folder}/log.md: {message}"

    _step(run, "append to the activity log", log)


def run_upkeep(vault: Vault, *, source: str = "cli") -> UpkeepRun:
    """The five steps now, whatever the scheduler setting (the Second Brain must be on), as one
    ledger record."""
    settings = enabled_settings(vault)
    run = UpkeepRun()
    with vault.change_batch(ChangeContext(RUN_LABEL, source=source), "brain-run") as batch:
        _steps(batch, vault, settings, run)
    run.change = batch.change
    return run


# -- when it is due ------------------------------------------------------------------------


def state_file(vault: Path) -> Path:
    name = default_db_path(vault).stem
    return Path(platformdirs.user_state_dir(APP_NAME)) / "brain" / f"{name}-scheduler.json"


def last_run(vault: Path) -> float:
    """When the upkeep last ran for ``vault`` (epoch seconds); 0 (never, so due now) when the
    file is missing or unreadable: the worst a lost file does is one run sooner."""
    try:
        data = json.loads(state_file(vault).read_text(encoding="utf-8"))
        value = data.get("last_run") if isinstance(data, dict) else None
    except (OSError, ValueError):
        return 0.0
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def record_run(vault: Path, when: float) -> None:
    path = state_file(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps({"version": 1, "last_run": when}) + "\n")


def is_due(settings: SecondBrainSettings, last: float, now: float) -> bool:
    """On, and never run (``last`` 0) or run at least the interval ago."""
    if not (settings.enabled and settings.scheduler):
        return False
    return last <= 0 or now >= last + settings.scheduler_interval_hours * HOUR


def run_if_due(vault: Vault, now: float | None = None) -> UpkeepRun | None:
    """The upkeep when the scheduler is on and the interval has passed since the last run (None
    otherwise); a run with at least one step done is remembered as the last."""
    now = time.time() if now is None else now
    settings = load_second_brain_settings(vault.path)
    if not is_due(settings, last_run(vault.path), now):
        return None
    run = run_upkeep(vault)
    if run.any_ok:
        record_run(vault.path, now)
    return run
