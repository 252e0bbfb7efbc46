"""``vaultctx brain synthesize | wiki-note | update-index | stale``: the Second Brain's wiki
(docs/second-brain.md). Each refuses while ``[second_brain] enabled`` is not true; the one that
asks a model (``synthesize``) takes the backend options of ``vaultctx ask``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.cli.model_options import NO_MODEL_FLAGS, ModelFlags
from vaultctx.cli.option_groups import takes_option_groups
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext


def _enabled_vault(vault: str | None, db: str | None) -> Vault:
    from vaultctx.brain.settings import load_second_brain_settings

    handle = open_vault(vault, db)
    load_second_brain_settings(handle.path).require_enabled()
    return handle


def _change(label: str) -> ChangeContext:
    from vaultctx.ledger.context import ChangeContext

    return ChangeContext(label=f"brain {label}", source="cli")


def _print(lines: list[str]) -> None:
    for line in lines:
        print(printable(line))


@takes_option_groups
def synthesize(
    topic: Annotated[str, typer.Argument(help="What to synthesize, e.g. 'sync conflicts'.")],
    vault: VaultOption = None,
    db: DbOption = None,
    model_flags: ModelFlags = NO_MODEL_FLAGS,
    as_json: JsonOption = False,
) -> None:
    """Write or regenerate the wiki note on TOPIC from your notes, showing what changed."""
    from vaultctx.brain.synthesis import synthesize_topic
    from vaultctx.cli.text_model_flags import second_brain_vault_and_model

    handle, text_model = second_brain_vault_and_model(vault, db, model_flags)
    result = asyncio.run(
        synthesize_topic(handle, text_model, topic, change=_change(f"synthesize {topic}"))
    )
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    _print(result.message.splitlines())
    _print([f"note: {notice}" for notice in (result.change.notices if result.change else [])])


def wiki_note(
    title: Annotated[str, typer.Argument(help="The note's title (and file name).")],
    body: Annotated[
        str | None, typer.Option("--body", help="The note's text.", show_default=False)
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from", help="Read the note's text from this file (- : stdin)."),
    ] = None,
    category: Annotated[
        str | None,
        typer.Option("--category", help="entities, concepts or projects (else the wiki's top)."),
    ] = None,
    recency: Annotated[
        str | None, typer.Option("--recency", help="evergreen (default) or dated.")
    ] = None,
    confidence: Annotated[
        str | None, typer.Option("--confidence", help="low, medium (default), high, or 0-1.")
    ] = None,
    valid_from: Annotated[
        str | None, typer.Option("--valid-from", metavar="YYYY-MM-DD", help="Valid from.")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable).")] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a new AI-first note in the wiki folder (never over an existing one)."""
    from vaultctx.brain.wiki_note import create_wiki_note

    if (body is None) == (from_file is None):
        raise VaultctxError(
            "give the note's text with --body or --from (one of them)",
            'e.g. vaultctx brain wiki-note "Sync" --from draft.md',
        )
    text = body if body is not None else _read_text(from_file)
    handle = _enabled_vault(vault, db)
    meta: dict[str, object] = {"source": "vaultctx brain wiki-note"}
    for key, value in (("recency", recency), ("confidence", confidence)):
        if value is not None:
            meta[key] = value
    if valid_from is not None:
        meta["valid_from"] = valid_from
    if tag:
        meta["tags"] = list(tag)
    result = create_wiki_note(
        handle, title, text, category, meta, change=_change(f"wiki-note {title}")
    )
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        _print([result.message])


def _read_text(source: Path | None) -> str:
    assert source is not None
    if str(source) == "-":
        return sys.stdin.read()
    try:
        return source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VaultctxError(
            f"cannot read {source} as UTF-8 text ({exc})", "give a readable text file"
        ) from None


def update_index(
    vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False
) -> None:
    """Rebuild the catalogue of the wiki's notes in its index.md."""
    from vaultctx.brain.catalog import update_index as update

    result = update(_enabled_vault(vault, db), change=_change("update-index"))
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
    else:
        _print([result.message])


def stale(
    vault: VaultOption = None,
    db: DbOption = None,
    mark: Annotated[
        bool,
        typer.Option("--mark", help="Also write the outdated callout into the notes listed."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """List the synthesis notes whose sources changed since they were written."""
    from vaultctx.brain.staleness import check_stale

    check = check_stale(_enabled_vault(vault, db), write=mark)
    if as_json:
        print(json.dumps(check.as_dict(), ensure_ascii=False))
        return
    if not check.stale:
        print("No synthesis note is outdated (as of the last `vaultctx index`).")
    for note in check.stale:
        shown = "" if note.marked else " (not marked in the note yet: --mark)"
        _print([f"{note.path} ({note.topic}){shown}"])
        _print([f"  changed: {path}" for path in note.changed])
    _print(
        [
            f"{path}: not checked, its generated-block markers are broken"
            for path in check.unreadable
        ]
    )


def register_brain(brain_app: typer.Typer) -> None:
    brain_app.command("synthesize")(synthesize)
    brain_app.command("wiki-note")(wiki_note)
    brain_app.command("update-index")(update_index)
    brain_app.command("stale")(stale)
