"""``vaultctx brain run`` and ``vaultctx brain dashboard``: the Second Brain's upkeep by hand,
and the Bases dashboard alone (docs/second-brain.md#scheduled-upkeep). Both need no model and
refuse while the Second Brain is off; ``run`` ignores the scheduler setting."""

from __future__ import annotations

import json
import time

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable


def run(vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Run the five upkeep steps now: folders, catalogue, gap report, dashboard, activity log."""
    from vaultctx.review.brain_scheduler import record_run, run_upkeep

    handle = open_vault(vault, db)
    done = run_upkeep(handle)
    if done.any_ok:
        record_run(handle.path, time.time())  # the scheduler counts from here
    if as_json:
        print(json.dumps(done.as_dict(), ensure_ascii=False))
    else:
        for line in done.lines():
            print(printable(line))
    if not done.any_ok:
        raise VaultctxError(
            "every upkeep step failed (listed above)", "fix the first failure and run it again"
        )


def dashboard(vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Refresh the Bases dashboard (decisions, open questions, outdated notes, review queue)."""
    from vaultctx.ledger.context import ChangeContext
    from vaultctx.review.dashboard import refresh_dashboard

    change = ChangeContext("brain dashboard", source="cli")
    result = refresh_dashboard(open_vault(vault, db), change=change)
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        print(printable(result.message))


def register_brain(brain_app: typer.Typer) -> None:
    brain_app.command("run")(run)
    brain_app.command("dashboard")(dashboard)
