"""``vaultctx template list|save|apply``: note templates (docs/organize.md#templates), the same
code as the agent's template tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext


def _template_folder(handle: Vault) -> str:
    """``template_folder`` under [agent], read as the agent reads it."""
    from vaultctx.agent.settings import load_agent_settings

    return load_agent_settings(handle.path).template_folder


def _change(label: str) -> ChangeContext:
    from vaultctx.ledger.context import ChangeContext

    return ChangeContext(label=label, source="cli")


def _report(report: dict[str, Any], said: list[str], notices: list[str], *, as_json: bool) -> None:
    """A change's report: ``report`` and the notices as JSON, or the lines and the notices."""
    if as_json:
        print(json.dumps({**report, "notices": notices}, ensure_ascii=False))
        return
    for line in [*said, *(f"note: {notice}" for notice in notices)]:
        print(printable(line))


def parse_vars(pairs: list[str]) -> dict[str, str]:
    """``key=value`` pairs as a mapping (the value may hold ``=``; a later key wins)."""
    variables: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise VaultctxError(
                f"--var {pair!r} is not key=value",
                "write each variable as --var key=value, e.g. --var title=Kickoff",
            )
        variables[key] = value
    return variables


def _read_content(source: str | None) -> str:
    if source is None and sys.stdin.isatty():
        raise VaultctxError(
            "no template text given", "pass --from FILE, or --from - and the text on stdin"
        )
    if source in (None, "-"):
        return sys.stdin.read()
    path = Path(source).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise VaultctxError(
            f"cannot read --from {source}: {reason}", "give a UTF-8 text file that exists"
        ) from None


def list_cmd(vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """List the saved templates (the notes in the template folder)."""
    from vaultctx.organize.templates import list_templates

    handle = open_vault(vault, db)
    folder = _template_folder(handle)
    names = list_templates(handle, folder)
    if as_json:
        print(json.dumps({"folder": folder, "templates": names or []}, ensure_ascii=False))
        return
    if names is None:
        print(
            printable(
                f"the template folder {folder}/ does not exist yet; "
                "`vaultctx template save NAME` creates it"
            ),
            file=sys.stderr,
        )
        return
    if not names:
        print(printable(f"no templates in {folder}/ yet"), file=sys.stderr)
    for name in names:
        print(printable(name))


def save_cmd(
    name: Annotated[str, typer.Argument(help="The template's name, without a folder or .md.")],
    source: Annotated[
        str | None,
        typer.Option("--from", metavar="FILE|-", help="The template text: a file, or - for stdin."),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Save a template (an existing one of that name is overwritten)."""
    from vaultctx.organize.templates import save_template, template_path

    content = _read_content(source)
    handle = open_vault(vault, db)
    path = template_path(handle, _template_folder(handle), name)
    saved = save_template(handle, path, content, change=_change(f"template save {path}"))
    report = {"path": saved.path, "created": saved.created, "record": saved.record_id}
    said = [f"{'saved' if saved.created else 'updated'} {saved.path}"]
    _report(report, said, saved.notices, as_json=as_json)


def apply_cmd(
    name: Annotated[str, typer.Argument(help="The template's name, as `template list` shows it.")],
    output: Annotated[
        str, typer.Argument(metavar="OUTPUT_PATH", help="The new note, vault-relative.")
    ],
    var: Annotated[
        list[str] | None,
        typer.Option("--var", metavar="KEY=VALUE", help="Fill {{KEY}} with VALUE (repeatable)."),
    ] = None,
    vault: VaultOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a note from a template, filling its {{placeholders}}; an existing note is refused."""
    from vaultctx.organize.templates import apply_template, template_path

    variables = parse_vars(var or [])
    handle = open_vault(vault, db)
    path = template_path(handle, _template_folder(handle), name)
    applied = apply_template(
        handle, path, output, variables, change=_change(f"template apply {output}")
    )
    report = {
        "path": applied.path,
        "template": applied.template,
        "leftovers": applied.leftovers,
        "record": applied.record_id,
    }
    said = [f"created {applied.path} from {applied.template}"]
    if applied.leftovers:
        said.append(f"note: left as written, no --var for: {', '.join(applied.leftovers)}")
    _report(report, said, applied.notices, as_json=as_json)


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="Note templates: list, save, apply ({{placeholders}} filled in).",
        no_args_is_help=True,
    )
    group.command("list")(list_cmd)
    group.command("save")(save_cmd)
    group.command("apply")(apply_cmd)
    app.add_typer(group, name="template")
