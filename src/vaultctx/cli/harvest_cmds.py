"""``vaultctx conversations harvest ID``: a saved conversation's conclusions as a note of the
Second Brain's wiki (docs/conversations.md#harvest-a-conversation-into-a-note)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli.change_output import print_change_result
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel

NEEDED_FOR = "harvesting a conversation asks a model for its conclusions"


def harvest_model(vault: Vault, model_flags: ModelFlags = NO_MODEL_FLAGS) -> TextModel:
    """The configured model, once the Second Brain is known to be on (its wiki holds the note);
    no model configured is a clear refusal naming the setting."""
    from vaultctx.brain.wiki import enabled_settings
    from vaultctx.cli.text_model_flags import required_text_model

    enabled_settings(vault)
    return required_text_model(vault, model_flags, NEEDED_FOR)[0]


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

    handle = open_vault(vault, db)
    model = harvest_model(handle, model_flags)
    result = asyncio.run(harvest_saved(handle, model, conversation_id, source="cli"))
    print_change_result(result, as_json=as_json)
