"""``vaultctx todo``: today's to-do note (docs/organize.md#daily-to-do)."""

from __future__ import annotations

import json
from datetime import date
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, DryRunOption, JsonOption, VaultOption, open_vault
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable


def _day(value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise VaultctxError(
            f"--date {value!r} is not a date", "give it as YYYY-MM-DD, e.g. --date 2026-12-01"
        ) from None


def todo(
    vault: VaultOption = None,
    db: DbOption = None,
    day: Annotated[
        str | None,
        typer.Option("--date", metavar="YYYY-MM-DD", help="The day to make the note for."),
    ] = None,
    dry_run: DryRunOption = False,
    retro: Annotated[
        bool,
        typer.Option(
            "--retro", help="Write the day's retrospective into its note (asks the model once)."
        ),
    ] = False,
    clean_archive: Annotated[
        bool,
        typer.Option(
            "--clean-archive",
            help="Move archived to-dos older than [todo] archive_clean_days (90) to .trash/.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Make today's to-do note, carrying over unfinished items; archive old ones."""
    from vaultctx.organize.todo import run_todo

    if retro and clean_archive:
        raise VaultctxError(
            "--retro and --clean-archive are two separate runs", "give one of them at a time"
        )
    if retro or clean_archive:
        from vaultctx.cli.todo_extra_cmds import run_extra

        run_extra(open_vault(vault, db), _day(day), retro, dry_run=dry_run, as_json=as_json)
        return
    run = run_todo(open_vault(vault, db), _day(day), dry_run=dry_run)
    if as_json:
        print(json.dumps(run.as_dict(), ensure_ascii=False))
        return
    plan = run.plan
    would = "would " if dry_run else ""
    if plan.content is None:
        print(printable(f"{plan.path} exists; left as it is"))
    else:
        carried = f"carried {plan.carried} items and {plan.memos} memos from {plan.source}"
        print(printable(f"{would}create {plan.path}" + (f" ({carried})" if plan.source else "")))
    if plan.unrecognised:
        lines = ", ".join(str(line) for line in plan.unrecognised)
        print(
            printable(
                f"note: lines {lines} of {plan.source} look like checkboxes but are not "
                "(`- [ ] text`); they stay in that note and were not carried"
            )
        )
    for source, destination in plan.archive:
        print(printable(f"{would}archive {source} -> {destination}"))
    for skipped in plan.skipped:
        print(printable(f"note: {skipped} not archived: that name is taken in the archive"))
    for notice in run.notices:
        print(printable(f"note: {notice}"))


def register(app: typer.Typer) -> None:
    app.command("todo")(todo)
