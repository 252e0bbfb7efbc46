"""``vaultctx review links`` and ``vaultctx review duplicates``: the Second Brain's suggestions,
applied only as accepted (docs/second-brain.md#reviewing-links-and-duplicates)."""

from __future__ import annotations

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.review_cmds import AcceptOption, run_review


def links(
    vault: VaultOption = None,
    db: DbOption = None,
    accept: AcceptOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add accepted link suggestions to each note's "Related notes" block."""
    from vaultctx.brain.reports import enabled_settings
    from vaultctx.review.links_flow import LinksFlow

    handle = open_vault(vault, db)
    enabled_settings(handle)
    run_review(LinksFlow(), handle, accept=accept, as_json=as_json)


def duplicates(
    vault: VaultOption = None,
    db: DbOption = None,
    accept: AcceptOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record accepted duplicates on their canonical note (aliases, a list); nothing is merged."""
    from vaultctx.brain.reports import enabled_settings
    from vaultctx.review.duplicates_flow import DuplicatesFlow

    handle = open_vault(vault, db)
    enabled_settings(handle)
    run_review(DuplicatesFlow(), handle, accept=accept, as_json=as_json)


def register_review(review_app: typer.Typer) -> None:
    review_app.command("links")(links)
    review_app.command("duplicates")(duplicates)
