"""``vaultctx links``: a note's outlinks and backlinks, or every broken link in the vault."""

from __future__ import annotations

import json
from itertools import groupby
from typing import Annotated

import typer
from rich.markup import escape

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault, stdout
from vaultctx.errors import VaultctxError
from vaultctx.search.graph import ResolvedLink
from vaultctx.text.counting import counted


def as_written(link: ResolvedLink) -> str:
    """The link in the note's own syntax, so it can be found there."""
    anchor = f"#^{link.block}" if link.block else (f"#{link.heading}" if link.heading else "")
    if link.kind == "markdown":
        return f"[{link.alias or ''}]({link.target}{anchor})"
    alias = f"|{link.alias}" if link.alias else ""
    return f"{'!' if link.kind == 'embed' else ''}[[{link.target}{anchor}{alias}]]"


def _say(markup: str) -> None:
    """One line as is: paths are not wrapped or colour-guessed."""
    stdout.print(markup, soft_wrap=True, highlight=False)


def _print_outlink(link: ResolvedLink) -> None:
    destination = escape(link.resolved) if link.resolved else "[red](unresolved)[/]"
    _say(f"  [dim]line {link.line:>4}[/]  {escape(as_written(link))} → {destination}")


def _print_backlink(link: ResolvedLink) -> None:
    _say(f"  {escape(link.source)}[dim]:{link.line}[/]  {escape(as_written(link))}")


def links(
    note: Annotated[
        str | None, typer.Argument(help="A note: vault-relative path, name or alias.")
    ] = None,
    broken: Annotated[
        bool, typer.Option("--broken", help="List every link that leads nowhere, by note.")
    ] = False,
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show what NOTE links to and what links to it (with line numbers), or --broken links."""
    if (note is None) == (not broken):
        raise VaultctxError(
            "nothing to show" if note is None else "NOTE and --broken both given",
            "give a NOTE or --broken (exactly one of them)",
        )
    handle = open_vault(vault, db)
    if broken:
        found = handle.broken_links()
        if as_json:
            payload = {"broken": [link._asdict() for link in found], "count": len(found)}
            print(json.dumps(payload, ensure_ascii=False))
            return
        if not found:
            _say("no broken links")
            return
        for source, group in groupby(found, key=lambda link: link.source):
            _say(f"[bold]{escape(source)}[/]")
            for link in group:
                _say(f"  [dim]line {link.line:>4}[/]  {escape(as_written(link))}")
        notes = len({link.source for link in found})
        _say(f"[dim]{counted(len(found), 'broken link')} in {counted(notes, 'note')}[/]")
        return
    assert note is not None
    listing = handle.links(note)
    if as_json:
        print(json.dumps(listing.as_dict(), ensure_ascii=False))
        return
    _say(f"[bold]{escape(listing.title)}[/]  [dim]{escape(listing.path)}[/]")
    _say(f"Outlinks ({len(listing.outlinks)}):")
    for link in listing.outlinks:
        _print_outlink(link)
    _say(f"Backlinks ({len(listing.backlinks)}):")
    for link in listing.backlinks:
        _print_backlink(link)


def register(app: typer.Typer) -> None:
    app.command()(links)
