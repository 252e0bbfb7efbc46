"""``vaultctx review contradictions TOPIC``: contradictions in your notes about TOPIC, each a
proposal; an accepted one writes its suggestion into the notes involved (docs/second-brain.md).
"""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from vaultctx.cli.agent_cmds import BackendOption, BaseUrlOption, ModelOption, SecretOption
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.review_cmds import AcceptOption


def contradictions(
    topic: Annotated[str, typer.Argument(help="The topic whose notes may contradict.")],
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    backend: BackendOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key_secret: SecretOption = None,
    as_json: JsonOption = False,
) -> None:
    """Review contradictions about TOPIC; accepted suggestions go into each note's reconcile
    block (learned_at set to today), as one undoable change."""
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.cli.text_model_flags import second_brain_model as text_model
    from vaultctx.review.contradictions import ContradictionsFlow

    handle = open_vault(vault, db)
    flags = {"backend": backend, "model": model, "base_url": base_url}
    chosen = text_model(handle, **flags, api_key_secret=api_key_secret)
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
