"""``vaultctx undo`` and ``vaultctx ledger``: the AI change ledger from the command line.

Labels, paths and diffs come from a model's tool calls and from notes, so everything shown is
passed through ``printable`` first (no escape sequences reach the terminal).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.ledger.diff import FileDiff
    from vaultctx.ledger.store import LedgerRecord, UnreadableRecord


def _line(text: str) -> None:
    print(printable(text))


def undo(
    record_id: Annotated[
        str | None,
        typer.Argument(
            metavar="[ID]",
            help="A change's id, as listed; default the newest. Later changes to the same "
            "files must be undone first.",
        ),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what the undo would change; write nothing.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Undo the newest AI change (or change ID), if its files are as it left them."""
    report = open_vault(vault, db).undo(record_id, dry_run=dry_run)
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
    handle = open_vault(vault, db)
    records = handle.ledger(limit=None)
    unreadable = handle.ledger_unreadable()
    if as_json:
        listed = [record.as_dict() for record in records]
        listed += [bad.as_dict() for bad in unreadable]
        print(json.dumps(listed, ensure_ascii=False))
        return
    if not records and not unreadable:
        _line("no AI changes recorded")
        return
    running = records[0].id if records and handle.ledger_store().busy() else None
    for record in records:
        paths = ", ".join(record.paths)
        state = "  INTERRUPTED" if record.interrupted else ""
        if record.interrupted and record.id == running:
            state = "  IN PROGRESS (another vaultctx process is making it)"
        _line(f"{record.id}  {record.time}  {record.source:<5}  {record.label}{state}  [{paths}]")
    for bad in unreadable:
        _line(f"{bad.id}  UNREADABLE  {bad.file}: {bad.why}")
    if any(record.interrupted and record.id != running for record in records):
        _line(
            "INTERRUPTED: the process stopped before the change finished; `vaultctx undo ID` "
            "takes back the steps it made"
        )
    if unreadable:
        _line("UNREADABLE records block no other; `vaultctx ledger drop ID` discards one")


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
        print(json.dumps(_with_files(record, diffs), ensure_ascii=False))
        return
    _line(f"{record.id}  {record.time}  {record.source}  {record.label}")
    if record.conversation_id:
        _line(f"conversation {record.conversation_id}")
    _print_diffs(diffs, say_binary=True)


def drop(
    record_id: Annotated[str, typer.Argument(metavar="ID", help="A change's id, as listed.")],
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Discard one recorded change without undoing it (one that cannot apply any more, or cannot
    be read), showing the diff it held. The files stay as they are."""
    dropped, diffs = open_vault(vault, db).ledger_drop(record_id)
    if as_json:
        print(json.dumps(_with_files(dropped, diffs)))  # ASCII-escaped, as it always was
        return
    label = getattr(dropped, "label", "unreadable record")
    _line(f"dropped {dropped.id} ({label}); it can no longer be undone. It held:")
    _print_diffs(diffs, say_binary=False)


def _with_files(record: LedgerRecord | UnreadableRecord, diffs: list[FileDiff]) -> dict[str, Any]:
    """A record's JSON with the diff of each file it changed."""
    return {**record.as_dict(), "files": [diff.as_dict() for diff in diffs]}


def _print_diffs(diffs: list[FileDiff], *, say_binary: bool) -> None:
    for diff in diffs:
        _line(f"{diff.change} {diff.path}")
        if diff.diff:
            _line(diff.diff.rstrip("\n"))
        elif say_binary and diff.change == "modified":
            _line("  (binary content)")


def register(app: typer.Typer) -> None:
    app.command()(undo)
    from vaultctx.cli.writing_commands import ledger_help

    group = typer.Typer(help=ledger_help())
    group.callback(invoke_without_command=True)(list_records)
    group.command()(show)
    group.command()(drop)
    app.add_typer(group, name="ledger")
