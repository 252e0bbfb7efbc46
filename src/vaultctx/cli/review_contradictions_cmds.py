"""``vaultctx review contradictions TOPIC``: contradictions in your notes about TOPIC, each a
proposal; an accepted one writes its suggestion into the notes involved (docs/second-brain.md).
"""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.cli.review_cmds import AcceptOption


@takes_option_groups
def contradictions(
    topic: Annotated[str, typer.Argument(help="The topic whose notes may contradict.")],
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Review contradictions about TOPIC; accepted suggestions go into each note's reconcile
    block (learned_at set to today), as one undoable change."""
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.cli.text_model_flags import second_brain_vault_and_model
    from vaultctx.review.contradictions import ContradictionsFlow

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    # The list shown is saved per topic, so `--accept` applies what the user saw, not a new
    # answer of the model (vaultctx.review.saved_plans).
    run_review(
        ContradictionsFlow(topic, chosen),
        handle,
        accept=accept,
        as_json=as_json,
        scope=" ".join(topic.split()).casefold(),
        command=f"vaultctx review contradictions {shlex.quote(topic)}",
    )


def register_review(review_app: typer.Typer) -> None:
    review_app.command("contradictions")(contradictions)
