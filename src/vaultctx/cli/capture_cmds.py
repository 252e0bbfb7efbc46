"""``vaultctx capture`` (a note into the inbox) and ``vaultctx watch`` (re-index on change)."""

from __future__ import annotations

import json
import signal
import sys
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.capture import NOTE_TYPES, parse_tags
from vaultctx.cli.common import DbOption, JsonOption, VaultOption, open_vault, print_plain
from vaultctx.errors import VaultctxError
from vaultctx.text.terminal import printable

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.index.indexer import IndexReport
    from vaultctx.index.watch import WatchEvent


def capture(
    text: Annotated[str, typer.Argument(help="The note's text; - reads it from standard input.")],
    vault: VaultOption = None,
    db: DbOption = None,
    title: Annotated[
        str | None, typer.Option(help="Title (default: the text's first line).")
    ] = None,
    domain: Annotated[str | None, typer.Option(help="Front matter domain, e.g. security.")] = None,
    tags: Annotated[
        str | None, typer.Option(help="Comma-separated tags, e.g. oauth,tokens.")
    ] = None,
    source: Annotated[str | None, typer.Option(help="Where it came from (a URL).")] = None,
    note_type: Annotated[
        str, typer.Option("--type", help=f"Front matter type: {', '.join(NOTE_TYPES)}.")
    ] = "note",
    signal: Annotated[
        bool,
        typer.Option("--signal", help="Save it as a signal (type: signal) for `vaultctx triage`."),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Save TEXT as a new draft note in the inbox and index it, so search finds it at once.

    The inbox is inbox_folder in vaultctx.toml, else the vault's 00-inbox/ or Inbox/ folder,
    else a new 00-inbox/. With --signal it waits there for `vaultctx triage`.
    """
    if signal and note_type not in ("note", "signal"):
        raise VaultctxError(
            f"--signal and --type {note_type} contradict each other", "give only one of them"
        )
    body = sys.stdin.read() if text == "-" else text
    handle = open_vault(vault, db)
    inbox = None
    if signal:
        from vaultctx.signals.settings import load_signal_settings

        inbox = load_signal_settings(handle.path).inbox
    result = handle.capture(
        body,
        title=title,
        note_type="signal" if signal else note_type,
        domain=domain,
        tags=parse_tags(tags),
        source=source,
        inbox=inbox,
    )
    if as_json:
        print(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    state = "indexed" if result.indexed else "not indexed yet"
    print_plain(f"captured {result.path} ({state})")
    for notice in result.notices:
        print(f"note: {notice}", file=sys.stderr)


def _describe(event: WatchEvent) -> str:
    clock = time.strftime("%H:%M:%S")
    if event.report is None:
        return f"{clock} {event.kind}: {event.message}"
    files = event.report.as_dict()["files"]
    if event.kind == "quality":
        report = event.report
        return (
            f"{clock} pass 2: {report.quality_embedded} chunks embedded, "
            f"{report.quality_remaining or 0} remaining"
            + (" (paused for new changes)" if report.interrupted else "")
            + f" in {event.message}"
        )
    return (
        f"{clock} indexed {files['added']} added, {files['changed']} changed, "
        f"{files['removed']} removed, {files['renamed']} renamed in {event.message} "
        f"({event.changes} file events)"
    )


def _files_changed(report: IndexReport) -> bool:
    return bool(report.added or report.changed or report.removed or report.renamed)


def _check_second_brain(handle: Vault, *, as_json: bool, quiet: bool) -> None:
    """After a batch of changes, while the Second Brain is enabled: mark the synthesis notes
    whose sources changed (the mark is itself a change, which the next batch indexes)."""
    from vaultctx.cli.index_cmds import second_brain_check

    try:
        found, lines = second_brain_check(handle)
    except Exception as exc:  # a bug here must not end watching; the next batch tries again
        print(f"Second Brain: stale check failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    if found is None:
        return
    if as_json:
        print(json.dumps({"kind": "second_brain", **found}, ensure_ascii=False), flush=True)
    elif not quiet or "error" in found:
        for line in lines:
            print(printable(line), flush=True)


def watch(
    vault: VaultOption = None,
    db: DbOption = None,
    idle: Annotated[
        float | None,
        typer.Option(
            min=1.0, help="Quiet seconds before the transformer pass (pass 2) [default: 30]."
        ),
    ] = None,
    quality: Annotated[
        bool, typer.Option("--quality/--no-quality", help="Run pass 2 when the vault is idle.")
    ] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only problems.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Re-index the vault whenever its files change, until Ctrl-C."""
    handle = open_vault(vault, db)

    def report(event: WatchEvent) -> None:
        if as_json:
            line: dict[str, Any] = {"kind": event.kind, "changes": event.changes}
            line["message"] = event.message
            line["report"] = event.report.as_dict() if event.report else None
            print(json.dumps(line, ensure_ascii=False), flush=True)
        elif not quiet or event.kind in ("busy", "error"):
            stream = sys.stderr if event.kind == "error" else sys.stdout
            print(_describe(event), file=stream, flush=True)  # a log, often piped: no buffering
        if event.kind == "indexed" and event.report is not None and _files_changed(event.report):
            _check_second_brain(handle, as_json=as_json, quiet=quiet)

    watcher = handle.watcher(idle_seconds=idle, quality=quality, on_event=report)
    if not quiet and not as_json:
        print(f"watching {handle.path} (Ctrl-C to stop)", file=sys.stderr)
    stopping: list[bool] = []

    def on_sigint(signum: int, frame: Any) -> None:
        if stopping:
            raise KeyboardInterrupt
        stopping.append(True)
        print("stopping after the current file (Ctrl-C again to abort)…", file=sys.stderr)
        watcher.stop()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        watcher.run()
    finally:
        signal.signal(signal.SIGINT, previous)
    if not as_json and not quiet:
        print("stopped", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command()(capture)
    app.command()(watch)
