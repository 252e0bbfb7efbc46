"""``vaultctx brain gaps | links | duplicates | review-queue``: the reports that need no model
(docs/second-brain.md#reports-without-a-model), printed, as ``--json``, or written into a note
of the wiki folder with ``--write``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault

WriteOption = Annotated[
    bool,
    typer.Option(
        "--write",
        help="Also write the report into its note in the wiki folder (undoable; unchanged: "
        "nothing written).",
    ),
]


def _opened(vault: str | None, db: str | None) -> Vault:
    """The vault, once the Second Brain is known to be on (else a clear refusal)."""
    from vaultctx.brain.reports import enabled_settings

    handle = open_vault(vault, db)
    enabled_settings(handle)
    return handle


def _emit(
    handle: Vault, report: str, items: list[Any], markdown: str, *, as_json: bool, write: bool
) -> None:
    from vaultctx.brain.reports import enabled_settings

    written = None
    if write:
        from vaultctx.brain.report_notes import write_report_note

        written = write_report_note(handle, enabled_settings(handle), report, markdown)
    if as_json:
        payload: dict[str, Any] = {"report": report, "items": [i.as_dict() for i in items]}
        if written is not None:
            payload["written"] = {"path": written.path, "record_id": written.record_id}
        print(json.dumps(payload, ensure_ascii=False))
        return
    print(printable(markdown))
    if written is not None:
        if written.record_id is None:
            print(printable(f"{written.path} already holds this report; nothing was written"))
        else:
            record = f"ledger record {written.record_id}; `vaultctx undo` reverts it"
            print(printable(f"wrote {written.path} ({record})"))
        for notice in written.notices:
            print(printable(f"note: {notice}"))


# Each report's command name (also its name in --json and its note) and help line.
REPORTS = {
    "gaps": "The 20 heaviest knowledge gaps: missing notes, stubs, orphans, one-way links.",
    "links": "Notes to link each orphan and stub with (apply them with `vaultctx review links`).",
    "duplicates": "Near-duplicate notes around a canonical one (record them: "
    "`vaultctx review duplicates`).",
    "review-queue": "Five notes worth reading again; a note shown is not shown again for 7 days.",
}


def _found(report: str, handle: Vault) -> tuple[list[Any], str, list[str]]:
    """The report's items, its markdown, and the notices to show (on stderr) before it."""
    from vaultctx.brain import report_notes, reports

    if report == "review-queue":
        queue = reports.review_queue(handle)
        return queue.notes, report_notes.render_queue(queue.notes), queue.notices
    finders: dict[str, tuple[Callable[[Vault], list[Any]], Callable[[Any], str]]] = {
        "gaps": (reports.gaps, report_notes.render_gaps),
        "links": (reports.link_suggestions, report_notes.render_links),
        "duplicates": (reports.duplicates, report_notes.render_duplicates),
    }
    find, render = finders[report]
    items = find(handle)
    return items, render(items), []


def _command(report: str) -> Callable[..., None]:
    """The command that prints (or writes) ``report``: the four differ only in what they find."""

    def command(
        vault: VaultOption = None,
        db: DbOption = None,
        as_json: JsonOption = False,
        write: WriteOption = False,
    ) -> None:
        handle = _opened(vault, db)
        items, markdown, notices = _found(report, handle)
        for notice in notices:
            print(printable(f"note: {notice}"), file=sys.stderr)
        _emit(handle, report, items, markdown, as_json=as_json, write=write)

    command.__doc__ = REPORTS[report]
    return command


def register_brain(brain_app: typer.Typer) -> None:
    for report in REPORTS:
        brain_app.command(report)(_command(report))
