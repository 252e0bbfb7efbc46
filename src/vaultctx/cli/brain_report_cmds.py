"""``vaultctx brain gaps | links | duplicates | review-queue``: the reports that need no model
(docs/second-brain.md#reports-without-a-model), printed, as ``--json``, or written into a note
of the wiki folder with ``--write``."""

from __future__ import annotations

import json
import sys
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


def gaps(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    write: WriteOption = False,
) -> None:
    """The 20 heaviest knowledge gaps: missing notes, stubs, orphans, one-way links."""
    from vaultctx.brain.report_notes import render_gaps
    from vaultctx.brain.reports import gaps as knowledge_gaps

    handle = _opened(vault, db)
    found = knowledge_gaps(handle)
    _emit(handle, "gaps", found, render_gaps(found), as_json=as_json, write=write)


def links(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    write: WriteOption = False,
) -> None:
    """Notes to link each orphan and stub with (apply them with `vaultctx review links`)."""
    from vaultctx.brain.report_notes import render_links
    from vaultctx.brain.reports import link_suggestions

    handle = _opened(vault, db)
    found = link_suggestions(handle)
    _emit(handle, "links", found, render_links(found), as_json=as_json, write=write)


def duplicates(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    write: WriteOption = False,
) -> None:
    """Near-duplicate notes around a canonical one (record them: `vaultctx review duplicates`)."""
    from vaultctx.brain.report_notes import render_duplicates
    from vaultctx.brain.reports import duplicates as duplicate_clusters

    handle = _opened(vault, db)
    found = duplicate_clusters(handle)
    _emit(handle, "duplicates", found, render_duplicates(found), as_json=as_json, write=write)


def review_queue(
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    write: WriteOption = False,
) -> None:
    """Five notes worth reading again; a note shown is not shown again for 7 days."""
    from vaultctx.brain.report_notes import render_queue
    from vaultctx.brain.reports import review_queue as queue

    handle = _opened(vault, db)
    report = queue(handle)
    for notice in report.notices:
        print(printable(f"note: {notice}"), file=sys.stderr)
    _emit(
        handle,
        "review-queue",
        report.notes,
        render_queue(report.notes),
        as_json=as_json,
        write=write,
    )


def register_brain(brain_app: typer.Typer) -> None:
    brain_app.command("gaps")(gaps)
    brain_app.command("links")(links)
    brain_app.command("duplicates")(duplicates)
    brain_app.command("review-queue")(review_queue)
