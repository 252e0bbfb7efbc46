"""``vaultctx clip URL``: a web page saved as a note (docs/organize.md#web-clipper)."""

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
def clip(
    url: Annotated[str, typer.Argument(help="The page's address (http:// or https://).")],
    vault: VaultOption = None,
    db: DbOption = None,
    no_summary: Annotated[
        bool, typer.Option("--no-summary", help="Save the article itself; ask no model.")
    ] = False,
    translate: Annotated[
        str | None,
        typer.Option("--translate", metavar="LANG", help="Write the summary in this language."),
    ] = None,
    folder: Annotated[
        str | None,
        typer.Option("--folder", help="Vault folder for the note (default: \\[clip] folder)."),
    ] = None,
    allow_private: Annotated[
        bool,
        typer.Option(
            "--allow-private",
            help="Also fetch from private, loopback and link-local addresses (your own network).",
        ),
    ] = False,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="HOST:PORT",
            help="Allow exactly this host and port whatever it resolves to (for testing a "
            "local server; repeatable).",
            hidden=True,
        ),
    ] = None,
    signal: Annotated[
        bool,
        typer.Option(
            "--signal",
            help="Save it as a signal (type: signal) in the signals inbox, for `vaultctx triage`.",
        ),
    ] = False,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Save the article at URL as a note, summarised by the configured model."""
    from vaultctx.cli.text_model_flags import configured_text_model
    from vaultctx.organize.clip import clip as clip_page

    handle = open_vault(vault, db)
    if signal and folder is None:
        from vaultctx.signals.settings import load_signal_settings
        from vaultctx.signals.triage import signal_inbox

        folder = signal_inbox(handle, load_signal_settings(handle.path))
    text_model, max_tokens = (None, 0) if no_summary else configured_text_model(handle, model_flags)
    result = asyncio.run(
        clip_page(
            handle,
            url,
            text_model,
            translate=translate,
            folder=folder,
            no_summary=no_summary,
            max_tokens=max_tokens,
            allow_private=allow_private,
            allow_hosts=allow_host or (),
            note_type="signal" if signal else "web-clip",
        )
    )
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    how = f"summarised by {result.model}" if result.summarised else "the article itself"
    print(printable(f"created {result.path} ({how})"))
    for notice in result.notices:
        print(printable(f"note: {notice}"))


def register(app: typer.Typer) -> None:
    app.command("clip")(clip)
