"""``vaultctx undo`` and ``vaultctx ledger``: the AI change ledger from the command line.

Labels, paths and diffs come from a model's tool calls and from notes, so everything shown is
passed through ``printable`` first (no escape sequences reach the terminal).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.text.terminal import printable


def _line(text: str) -> None:
    print(printable(text))


def undo(
    vault: VaultOption = None,
    db: DbOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what the undo would change; write nothing.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Undo the newest AI change, if its files are still exactly as it left them."""
    report = open_vault(vault, db).undo(dry_run=dry_run)
    if as_json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
        return
    record = report.record
    verb = "would undo" if dry_run else "undid"
    _line(f"{verb} {record.id} ({record.label}, {record.source}, {record.time})")
    for diff in report.diffs:
        _line(f"  {diff.change:<8} {diff.path}")
    if dry_run:
        for diff in report.diffs:
            if diff.diff:
                _line(diff.diff.rstrip("\n"))
    for notice in report.notices:
        _line(f"note: {notice}")


def list_records(
    ctx: typer.Context,
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the recorded AI changes, newest first (`vaultctx ledger show ID` for one)."""
    if ctx.invoked_subcommand is not None:
        return
    records = open_vault(vault, db).ledger()
    if as_json:
        print(json.dumps([record.as_dict() for record in records], ensure_ascii=False))
        return
    if not records:
        _line("no AI changes recorded")
        return
    for record in records:
        paths = ", ".join(record.paths)
        _line(f"{record.id}  {record.time}  {record.source:<5}  {record.label}  [{paths}]")


def show(
    record_id: Annotated[str, typer.Argument(metavar="ID", help="A change's id, as listed.")],
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one recorded change: who made it, when, and a unified diff per file."""
    handle = open_vault(vault, db)
    record = handle.ledger_record(record_id)
    diffs = handle.ledger_diffs(record)
    if as_json:
        payload = {**record.as_dict(), "files": [diff.as_dict() for diff in diffs]}
        print(json.dumps(payload, ensure_ascii=False))
        return
    _line(f"{record.id}  {record.time}  {record.source}  {record.label}")
    if record.conversation_id:
        _line(f"conversation {record.conversation_id}")
    for diff in diffs:
        _line(f"{diff.change} {diff.path}")
        if diff.diff:
            _line(diff.diff.rstrip("\n"))
        elif diff.change == "modified":
            _line("  (binary content)")


def register(app: typer.Typer) -> None:
    app.command()(undo)
    from vaultctx.cli.writing_commands import ledger_help

    group = typer.Typer(help=ledger_help())
    group.callback(invoke_without_command=True)(list_records)
    group.command()(show)
    app.add_typer(group, name="ledger")
