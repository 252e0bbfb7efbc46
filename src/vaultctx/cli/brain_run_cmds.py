"""``vaultctx brain run`` and ``vaultctx brain dashboard``: the Second Brain's upkeep by hand,
and the Bases dashboard alone (docs/second-brain.md#scheduled-upkeep). Both need no model and
refuse while the Second Brain is off; ``run`` ignores the scheduler setting. ``vaultctx brain
opens`` shows (or with ``--clear`` forgets) the notes the Obsidian plugin reported opened, which
the review queue reads; it works with the Second Brain off, since it is the user's own record."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from typing import Annotated

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


SHOWN_OPENS = 10


def opens(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    clear: Annotated[
        bool, typer.Option("--clear", help="Forget every open the plugin reported.")
    ] = False,
) -> None:
    """The notes the Obsidian plugin reported opened (for the review queue), newest first."""
    from vaultctx.brain.reported_opens import forget_reported_opens, load_reported_opens, opens_file

    handle = open_vault(vault, db)
    where = opens_file(handle.path)
    if clear:
        forgot = forget_reported_opens(handle.path)
        message = (
            f"forgot the reported opens ({where})" if forgot else f"no reported opens ({where})"
        )
        print(
            json.dumps({"cleared": forgot, "file": str(where)}) if as_json else printable(message)
        )
        return
    record = load_reported_opens(where)
    last = sorted(record.last_opened().items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        listed = [{"path": p, "opened": record.opens[p]} for p, _ in last]
        print(json.dumps({"file": str(where), "notes": listed, "notices": record.notices}))
        return
    for notice in record.notices:
        print(printable(f"note: {notice}"), file=sys.stderr)
    print(printable(f"{len(last)} notes reported opened, kept in {where}"))
    for path, when in last[:SHOWN_OPENS]:
        print(printable(f"  {datetime.fromtimestamp(when).strftime('%Y-%m-%d %H:%M')}  {path}"))


def register_brain(brain_app: typer.Typer) -> None:
    brain_app.command("run")(run)
    brain_app.command("dashboard")(dashboard)
    brain_app.command("opens")(opens)
