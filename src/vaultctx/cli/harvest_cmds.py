"""``vaultctx conversations harvest ID``: a saved conversation's conclusions as a note of the
Second Brain's wiki (docs/conversations.md#harvest-a-conversation-into-a-note)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from vaultctx.cli.change_output import print_change_result
from vaultctx.cli.common import DbOption, JsonOption, VaultOption
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups

NEEDED_FOR = "harvesting a conversation asks a model for its conclusions"


@takes_option_groups
def harvest(
    conversation_id: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="A conversation id, or enough of its start to be unique.",
            show_default=False,
        ),
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Turn a saved conversation into a note of its conclusions in the wiki's Conversations/."""
    from vaultctx.brain.harvest import harvest_saved
    from vaultctx.cli.text_model_flags import second_brain_vault_and_model

    handle, model = second_brain_vault_and_model(vault, db, model_flags, NEEDED_FOR)
    result = asyncio.run(harvest_saved(handle, model, conversation_id, source="cli"))
    print_change_result(result, as_json=as_json)
