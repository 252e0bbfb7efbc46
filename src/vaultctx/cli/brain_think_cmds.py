"""``vaultctx brain challenge | connect | emerge | reconcile | architect``: the Second Brain's
thinking tools and the architecture note (docs/second-brain.md).

Each asks the configured model (the same backend options as ``vaultctx ask``) and refuses before
anything else while Second Brain is off. Only ``architect`` writes, inside the wiki folder,
through the undo ledger.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated, Any

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.cli.text_model_flags import second_brain_vault_and_model


@takes_option_groups
def challenge(
    claim: Annotated[str, typer.Argument(help="The claim to test against your notes.")],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """What your own notes say against CLAIM: gaps, counterexamples, assumptions."""
    from vaultctx.brain.thinking import challenge as run

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    result = asyncio.run(run(handle, chosen, claim))
    _show(result.as_dict(), result.text, result.notices, as_json)


@takes_option_groups
def connect(
    topic_a: Annotated[str, typer.Argument(metavar="A", help="The first topic.")],
    topic_b: Annotated[str, typer.Argument(metavar="B", help="The second topic.")],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """How two topics of your notes bear on each other."""
    from vaultctx.brain.thinking import connect as run

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    result = asyncio.run(run(handle, chosen, topic_a, topic_b))
    _show(result.as_dict(), result.text, result.notices, as_json)


@takes_option_groups
def emerge(
    days: Annotated[
        int, typer.Option("--days", help="Look at notes modified in the last N days.", min=1)
    ] = 7,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Patterns you have not named yet in the notes you changed recently (at most 60)."""
    from vaultctx.brain.thinking import emerge as run

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    result = asyncio.run(run(handle, chosen, days))
    # The cap is already the last line of the answer; no second copy on stderr.
    _show(result.as_dict(), result.text, [], as_json)


@takes_option_groups
def reconcile(
    topic: Annotated[str, typer.Argument(help="The topic whose notes may contradict.")],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Statements about TOPIC that contradict each other, as a report (nothing is changed)."""
    from vaultctx.brain.reconcile import reconcile_topic

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    report = asyncio.run(reconcile_topic(handle, chosen, topic))
    _show(report.as_dict(), report.text, report.notices, as_json)
    if report.status in ("unreadable", "unusable"):
        raise typer.Exit(2)


@takes_option_groups
def architect(
    path: Annotated[
        str | None,
        typer.Argument(help="Vault-relative folder of the codebase (default: the whole vault)."),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Write (or refresh) Architecture.md in the wiki folder for a codebase folder."""
    from vaultctx.brain.architect import architect as run
    from vaultctx.ledger.context import ChangeContext

    handle, chosen = second_brain_vault_and_model(vault, db, model_flags)
    label = f"brain architect {path or '(vault)'}"
    result = asyncio.run(run(handle, chosen, path, change=ChangeContext(label, source="cli")))
    _show(result.as_dict(), result.text, [], as_json)
    if result.record_id and not as_json:
        print(f"ledger record {result.record_id}; `vaultctx undo` reverts it")


def _show(payload: dict[str, Any], text: str, notices: list[str], as_json: bool) -> None:
    """The result on stdout (the model's text has its control characters removed: it goes to
    a terminal); the search's notices on stderr."""
    from vaultctx.text.terminal import printable

    if as_json:
        print(json.dumps(payload, ensure_ascii=False))
        return
    print(printable(text))
    for notice in notices:
        print(printable(f"note: {notice}"), file=sys.stderr)


def register_brain(brain_app: typer.Typer) -> None:
    brain_app.command()(challenge)
    brain_app.command()(connect)
    brain_app.command()(emerge)
    brain_app.command()(reconcile)
    brain_app.command()(architect)
