"""``vaultctx tags NOTE``: tags for a note from the model, reusing the vault's own
(docs/organize.md#tags); ``--apply`` writes them into its front matter."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.text.terminal import printable


@takes_option_groups
def tags(
    note: Annotated[str, typer.Argument(help="The note (vault-relative path or name).")],
    vault: VaultOption = None,
    db: DbOption = None,
    apply: Annotated[
        bool,
        typer.Option("--apply", help="Add the tags to the note's front matter (undoable)."),
    ] = False,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Suggest 3 to 5 tags for NOTE, reusing the vault's existing tags where they fit."""
    from vaultctx.cli.text_model_flags import required_text_model
    from vaultctx.organize.tags import apply_tags, suggest_tags

    handle = open_vault(vault, db)
    text_model, max_tokens = required_text_model(
        handle, model_flags, "tags are suggested by a model"
    )
    suggestion = asyncio.run(
        suggest_tags(handle, text_model, note, max_tokens=max_tokens, to_apply=apply)
    )
    if apply:
        suggestion = apply_tags(handle, suggestion)
    if as_json:
        print(json.dumps(suggestion.as_dict(), ensure_ascii=False))
        return
    print(printable(", ".join(suggestion.tags)))
    if apply:
        done = "added to" if suggestion.applied else "already all in"
        print(printable(f"{done} the front matter of {suggestion.path}"))


def register(app: typer.Typer) -> None:
    app.command("tags")(tags)
