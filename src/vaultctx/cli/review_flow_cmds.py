"""``vaultctx review inbox``, ``vaultctx review decisions`` and ``vaultctx review triage``
(docs/review.md): approval flows whose proposals come from the model configured for ``vaultctx
ask`` (same backend options; triage scores offline without one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags, OfflineOption
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.cli.review_cmds import AcceptOption

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel


def text_model(vault: Vault, model_flags: ModelFlags) -> TextModel:
    """The model of ``vaultctx ask``; these flows have nothing to propose without one."""
    from vaultctx.cli.text_model_flags import required_text_model

    return required_text_model(vault, model_flags, "the proposals come from a model")[0]


@takes_option_groups
def inbox(
    folder: Annotated[
        str | None,
        typer.Option(
            "--folder",
            help="The inbox folder (default: where `vaultctx capture` writes).",
            show_default=False,
        ),
    ] = None,
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Propose a folder, a name and tags for the newest notes in the inbox."""
    from vaultctx.capture import inbox_folder as capture_inbox
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.review.inbox import InboxFlow, inbox_folder

    handle = open_vault(vault, db)
    if folder is None:
        folder = capture_inbox(handle.path, handle.config.settings.inbox_folder)
    relative = inbox_folder(handle, folder)  # a missing folder is an error before any model
    flow = InboxFlow(text_model(handle, model_flags), relative)
    run_review(
        flow,
        handle,
        accept=accept,
        as_json=as_json,
        scope=relative,
        command=f"vaultctx review inbox --folder {_quoted(relative)}",
    )


@takes_option_groups
def decisions(
    topic: Annotated[str, typer.Argument(help="What the decisions are about (a search).")],
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Find decisions about TOPIC in your notes and merge the accepted ones into the ledger."""
    from vaultctx.brain.settings import load_second_brain_settings
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.errors import VaultctxError
    from vaultctx.review.decisions import DecisionsFlow

    if not topic.strip():
        raise VaultctxError("the topic is empty", 'name one, e.g. vaultctx review decisions "db"')
    handle = open_vault(vault, db)
    load_second_brain_settings(handle.path).require_enabled()
    flow = DecisionsFlow(text_model(handle, model_flags), topic)
    run_review(
        flow,
        handle,
        accept=accept,
        as_json=as_json,
        scope=" ".join(topic.split()).casefold(),
        command=f"vaultctx review decisions {_quoted(topic)}",
    )


@takes_option_groups
def triage(
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    offline: OfflineOption = False,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """`vaultctx triage` one signal at a time: list the new signals, write only those accepted."""
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.cli.text_model_flags import triage_model
    from vaultctx.signals.triage_flow import TriageFlow

    handle = open_vault(vault, db)
    scorer = triage_model(handle, model_flags, offline=offline)
    run_review(TriageFlow(scorer), handle, accept=accept, as_json=as_json, scope="")


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def register_review(review_app: typer.Typer) -> None:
    review_app.command("inbox")(inbox)
    review_app.command("decisions")(decisions)
    review_app.command("triage")(triage)
