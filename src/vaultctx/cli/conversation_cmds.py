"""``vaultctx conversations list | search | show | export | rename | delete``: the saved chats of
a vault (docs/conversations.md), a thin shell over ``vaultctx.conversations``."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from vaultctx.atomic_write import write_atomically
from vaultctx.cli.common import JsonOption, VaultOption
from vaultctx.config import Config, load_config
from vaultctx.conversations import (
    Conversation,
    ConversationStore,
    conversation_markdown,
)
from vaultctx.conversations.export import UNTITLED, message_markdown
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

IdArgument = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help="A conversation id, or enough of its start to be unique.",
        show_default=False,
    ),
]


def _store(vault: str | None, *, create: bool = False) -> ConversationStore:
    """The vault's store; reading commands never create one (a vault without saved
    conversations reads as empty)."""
    return ConversationStore.open(load_config(vault).vault, create=create)


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def list_conversations(
    vault: VaultOption = None,
    limit: Annotated[int, typer.Option(min=1, help="How many to show.")] = 20,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many of the newest.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """The vault's saved conversations, the most recently updated first."""
    with _store(vault) as store:
        found = store.list(limit=limit, offset=offset)
        total = store.count()
    if as_json:
        print(json.dumps([c.as_dict() for c in found], ensure_ascii=False))
        return
    if not found:
        print("no saved conversations" + (" at this offset" if total else ""), file=sys.stderr)
        return
    for summary in found:
        count = f"{summary.message_count} msg"
        title = printable(summary.title or UNTITLED)
        print(f"{summary.id}  {_when(summary.updated)}  {count:>7}  {title}")
    if offset + len(found) < total:
        print(
            f"{total - offset - len(found)} more: --offset {offset + len(found)}", file=sys.stderr
        )


def search(
    query: Annotated[str, typer.Argument(help="Words to find in any message or title.")],
    vault: VaultOption = None,
    limit: Annotated[int, typer.Option(min=1, help="How many conversations to show.")] = 10,
    as_json: JsonOption = False,
) -> None:
    """Conversations with a message holding every word of QUERY, best first."""
    with _store(vault) as store:
        hits = store.search(query, limit=limit)
    if as_json:
        print(json.dumps([hit.as_dict() for hit in hits], ensure_ascii=False))
        return
    if not hits:
        print(f"no conversation mentions {query!r}", file=sys.stderr)
        return
    for hit in hits:
        print(printable(f"{hit.conversation_id}  {hit.title or UNTITLED}\n    {hit.snippet}"))


def show(
    conversation_id: IdArgument, vault: VaultOption = None, as_json: JsonOption = False
) -> None:
    """A conversation, message by message."""
    with _store(vault) as store:
        conversation = store.get(conversation_id)
    if as_json:
        print(json.dumps(conversation.as_dict(), ensure_ascii=False))
        return
    print(printable(_transcript(conversation)), end="")


def _transcript(conversation: Conversation) -> str:
    count = len(conversation.messages)
    header = (
        f"{conversation.id}  {conversation.title or UNTITLED}\n"
        f"{conversation.backend}/{conversation.model} · {count} message{'s' * (count != 1)} · "
        f"started {_when(conversation.created)} · updated {_when(conversation.updated)}\n"
    )
    return "\n".join([header, *(message_markdown(m) for m in conversation.messages)])


def export(
    conversation_id: IdArgument,
    vault: VaultOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write to this file (default: standard output)."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing file (kept as FILE.bak).")
    ] = False,
) -> None:
    """A conversation as markdown with YAML front matter.

    Nothing is written into the vault unless --out names a file there; such a file is a change
    to the vault like any other: recorded, and `vaultctx undo` reverts it.
    """
    config = load_config(vault)
    with ConversationStore.open(config.vault, create=False) as store:
        conversation = store.get(conversation_id)
    document = printable(conversation_markdown(conversation))
    if out is None:
        sys.stdout.write(document)
        return
    out = out.expanduser()
    _check_export_target(out, force=force)
    inside = _vault_relative(out, config.vault)
    if inside is None:
        _write_export(out, document, force=force)
        where = ""
    else:
        _export_into_vault(config, inside, document, conversation.id)
        where = " (inside the vault: recorded, `vaultctx undo` reverts it)"
    print(f"exported {conversation.id} to {out}{where}", file=sys.stderr)


def _check_export_target(out: Path, *, force: bool) -> None:
    if out.is_symlink():
        raise VaultctxError(
            f"{out} is a symbolic link; export writes only to a regular file",
            "give the path of the file itself, or another name",
        )
    if out.exists() and not out.is_file():
        raise VaultctxError(f"{out} exists and is not a file", "give a file name for --out")
    if out.exists() and not force:
        raise VaultctxError(
            f"{out} already exists",
            "choose another name, or pass --force to replace it (outside the vault the old "
            "file is kept as .bak; inside it, `vaultctx undo` brings it back)",
        )
    if not out.parent.is_dir():
        raise VaultctxError(
            f"the folder {out.parent} does not exist", "create it first, or choose another path"
        )


def _write_export(out: Path, document: str, *, force: bool) -> None:
    try:
        write_atomically(out, document, backup=force)
    except VaultctxError:
        raise
    except OSError as exc:
        raise VaultctxError(
            f"cannot write {out} ({exc.strerror or exc})",
            "choose a location you can write to, or leave out --out to print to standard output",
        ) from exc


def _export_into_vault(config: Config, path: str, document: str, conversation: str) -> None:
    """Through the vault's change methods: confined (no link, nothing the index ignores),
    atomic and recorded in the ledger, a replaced note's old text included."""
    from vaultctx.api import Vault
    from vaultctx.ledger.context import ChangeContext

    change = ChangeContext(f"conversations export {path}", conversation, source="cli")
    with Vault(config=config) as handle:
        if (handle.path / path).exists():
            handle.replace_note(path, document, change=change)
        else:
            handle.create_note(path, document, change=change)


def _vault_relative(path: Path, vault: Path) -> str | None:
    """``path``'s place in the vault (its folder's links resolved), or None when outside."""
    root = Path(os.path.realpath(vault))
    target = Path(os.path.realpath(path.parent)) / path.name
    if root not in target.parents:
        return None
    return target.relative_to(root).as_posix()


def rename(
    conversation_id: IdArgument,
    title: Annotated[str, typer.Argument(help="The new title.")],
    vault: VaultOption = None,
) -> None:
    """Give a conversation a new title."""
    with _store(vault) as store:
        full_id = store.rename(conversation_id, title)
    print(f"renamed {full_id}", file=sys.stderr)


def delete(
    conversation_id: IdArgument,
    vault: VaultOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a conversation for good."""
    with _store(vault) as store:
        conversation = store.get(conversation_id)
        if not yes and sys.stdin.isatty():
            question = f"delete {conversation.id} ({conversation.title or UNTITLED})?"
            typer.confirm(question, abort=True)
        store.delete(conversation.id)
    print(f"deleted {conversation.id} ({conversation.title or UNTITLED})", file=sys.stderr)


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="Saved conversations with the agent: list, search, show, export.",
        no_args_is_help=True,
    )
    group.command("list")(list_conversations)
    group.command()(search)
    group.command()(show)
    group.command()(export)
    group.command()(rename)
    group.command()(delete)
    from vaultctx.cli.harvest_cmds import harvest

    group.command()(harvest)
    app.add_typer(group, name="conversations")
