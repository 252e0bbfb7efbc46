"""``vaultctx verify-citations``: which note citations in a text do not resolve (README, Checking
citations)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from vaultctx.citations import CitationReport
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault, stdout
from vaultctx.errors import VaultctxError

STDIN = "-"


def verify_citations(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE|-", help="The text to check (an answer, a note); - reads standard input."
        ),
    ],
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check that the notes, headings and blocks a text cites exist; exit status 1 if any do not.

    Finds wiki-links and embeds (Note#Heading, Note#^block), markdown links and bare
    path.md#Heading citations, skipping code and URLs, and resolves them as Obsidian does.
    """
    text = _read_text(file)
    handle = open_vault(vault, db)
    source = None if file == STDIN else _path_in_vault(Path(file), handle.path)
    report = handle.verify_citations(text, source=source)
    if as_json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        _print_report(report, "<stdin>" if file == STDIN else file)
    if not report.ok:
        raise typer.Exit(1)


def _read_text(file: str) -> str:
    where = "standard input" if file == STDIN else file
    try:
        return sys.stdin.read() if file == STDIN else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        raise VaultctxError(
            f"cannot read {where} ({exc.strerror})", "pass a text file, or - to read standard input"
        ) from exc
    except UnicodeDecodeError as exc:
        raise VaultctxError(f"{where} is not UTF-8 text", "save it as UTF-8 and retry") from exc


def _path_in_vault(file: Path, vault: Path) -> str | None:
    """The file's vault-relative path when it is a note of this vault, so its own relative links
    (``[[#Heading]]``, ``../x.md``) resolve from where it is."""
    absolute = Path(os.path.realpath(file))
    root = Path(os.path.realpath(vault))
    return absolute.relative_to(root).as_posix() if root in absolute.parents else None


def _print_report(report: CitationReport, label: str) -> None:
    if report.checked == 0:
        stdout.print("no note citations found")
        return
    if report.ok:
        stdout.print(f"[green]✓[/] {_citations(report.checked)} checked, all resolve")
        return
    count = len(report.unresolved)
    stdout.print(f"[red]✗[/] {_citations(report.checked)} checked, {count} do not resolve")
    for item in report.unresolved:
        reason = item.reason.replace("_", " ")
        stdout.print(
            f"[bold]{escape(label)}:{item.line}:{item.column}[/]  {escape(item.citation)}",
            highlight=False,
            soft_wrap=True,
        )
        stdout.print(f"  [red]{reason}:[/] {escape(item.message)}", highlight=False, soft_wrap=True)
        if item.suggestion:
            stdout.print(f"  [dim]{escape(item.suggestion)}[/]", highlight=False, soft_wrap=True)


def _citations(count: int) -> str:
    return f"{count} citation" if count == 1 else f"{count} citations"


def register(app: typer.Typer) -> None:
    app.command("verify-citations")(verify_citations)
