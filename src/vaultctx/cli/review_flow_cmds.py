"""``vaultctx review inbox``, ``vaultctx review decisions`` and ``vaultctx review triage``
(docs/review.md): approval flows whose proposals come from the model configured for ``vaultctx
ask`` (same backend options; triage scores offline without one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli.agent_cmds import BackendOption, BaseUrlOption, ModelOption, SecretOption
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.review_cmds import AcceptOption

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.text_model import TextModel


def text_model(
    vault: Vault,
    backend: str | None,
    model: str | None,
    base_url: str | None,
    api_key_secret: str | None,
) -> TextModel:
    """The model of ``vaultctx ask``; these flows have nothing to propose without one."""
    from vaultctx.cli.text_model_flags import configured_text_model
    from vaultctx.errors import VaultctxError

    found, _ = configured_text_model(
        vault, backend=backend, model=model, base_url=base_url, api_key_secret=api_key_secret
    )
    if found is None:
        raise VaultctxError(
            "the proposals come from a model, and none is configured",
            "set [agent] model in your own vaultctx.toml (the user config folder; docs/agent.md), "
            "or pass --model",
        )
    return found


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
    backend: BackendOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key_secret: SecretOption = None,
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
    flow = InboxFlow(text_model(handle, backend, model, base_url, api_key_secret), relative)
    run_review(
        flow,
        handle,
        accept=accept,
        as_json=as_json,
        scope=relative,
        command=f"vaultctx review inbox --folder {_quoted(relative)}",
    )


def decisions(
    topic: Annotated[str, typer.Argument(help="What the decisions are about (a search).")],
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    backend: BackendOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key_secret: SecretOption = None,
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
    flow = DecisionsFlow(text_model(handle, backend, model, base_url, api_key_secret), topic)
    run_review(
        flow,
        handle,
        accept=accept,
        as_json=as_json,
        scope=" ".join(topic.split()).casefold(),
        command=f"vaultctx review decisions {_quoted(topic)}",
    )


def triage(
    accept: AcceptOption = None,
    vault: VaultOption = None,
    db: DbOption = None,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Score with the offline heuristic even if a model is set up."
        ),
    ] = False,
    backend: BackendOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key_secret: SecretOption = None,
    as_json: JsonOption = False,
) -> None:
    """`vaultctx triage` one signal at a time: list the new signals, write only those accepted."""
    from vaultctx.cli.review_cmds import run_review
    from vaultctx.signals.triage_flow import TriageFlow

    handle = open_vault(vault, db)
    scorer = None
    if not offline:
        from vaultctx.cli.text_model_flags import configured_text_model

        scorer, _ = configured_text_model(
            handle, backend=backend, model=model, base_url=base_url, api_key_secret=api_key_secret
        )
    run_review(TriageFlow(scorer), handle, accept=accept, as_json=as_json, scope="")


def _quoted(text: str) -> str:
    import shlex

    return shlex.quote(text)


def register_review(review_app: typer.Typer) -> None:
    review_app.command("inbox")(inbox)
    review_app.command("decisions")(decisions)
    review_app.command("triage")(triage)
