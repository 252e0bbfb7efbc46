"""``vaultctx review links`` and ``vaultctx review duplicates``: the Second Brain's suggestions,
applied only as accepted (docs/second-brain.md#reviewing-links-and-duplicates)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.review_cmds import AcceptOption, run_review

if TYPE_CHECKING:
    from vaultctx.proposals import ReviewFlow

# Each review's command and help line.
REVIEWS = {
    "links": 'Add accepted link suggestions to each note\'s "Related notes" block.',
    "duplicates": "Record accepted duplicates on their canonical note (aliases, a list); nothing "
    "is merged.",
}


def _flow(review: str) -> ReviewFlow:
    from vaultctx.review.duplicates_flow import DuplicatesFlow
    from vaultctx.review.links_flow import LinksFlow

    return LinksFlow() if review == "links" else DuplicatesFlow()


def _command(review: str) -> Callable[..., None]:
    """The command that reviews ``review``'s suggestions: the two differ only in their flow."""

    def command(
        vault: VaultOption = None,
        db: DbOption = None,
        accept: AcceptOption = None,
        as_json: JsonOption = False,
    ) -> None:
        from vaultctx.brain.reports import enabled_settings

        handle = open_vault(vault, db)
        enabled_settings(handle)
        run_review(_flow(review), handle, accept=accept, as_json=as_json)

    command.__doc__ = REVIEWS[review]
    return command


def register_review(review_app: typer.Typer) -> None:
    for review in REVIEWS:
        review_app.command(review)(_command(review))
