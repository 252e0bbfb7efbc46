"""``vaultctx para`` (docs/organize.md#para): file notes under Projects, Areas, Resources and
Archives as the model proposes, once the user accepts each move."""

from __future__ import annotations

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.cli.review_cmds import AcceptOption


@takes_option_groups
def para(
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Propose a P.A.R.A folder for each note; move only the notes you accept."""
    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.cli.agent_cmds import agent_settings
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.cli.review_flow_cmds import text_model
    from vaultctx.organize.para import ParaFlow
    from vaultctx.organize.todo import load_todo_settings
    from vaultctx.review.saved_plans import load_plan

    handle = open_vault(vault, db)
    todo = load_todo_settings(handle.config)
    left_alone = [
        agent_settings(handle).template_folder,
        todo.folder,
        todo.archive_folder,
        load_second_brain_settings(handle.path).wiki_folder,
    ]
    previous = load_plan(handle.path, "para", "")
    offered = [str(p.data.get("source")) for p in previous.proposals] if previous else []
    flow = ParaFlow(
        text_model(handle, model_flags),
        left_alone=list(dict.fromkeys(left_alone)),
        offered=offered,
    )
    run_review(flow, handle, accept=accept, as_json=as_json, scope="", command="vaultctx para")


def register(app: typer.Typer) -> None:
    app.command("para")(para)
