"""``vaultctx index``, ``status`` and ``doctor``: building and inspecting the index."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vaultctx.cli.common import (
    DbOption,
    JsonOption,
    VaultOption,
    console,
    open_vault,
    print_plain,
    served_vault,
)
from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.index.indexer import ProgressSink
    from vaultctx.index.status import IndexStatus


class LineProgress:
    """Plain progress lines for logs and pipes: at most one every two seconds."""

    def __init__(self) -> None:
        self._label, self._unit = "", ""
        self._total = 0
        self._done = 0
        self._started = 0.0
        self._last = 0.0

    def start(self, label: str, total: int, unit: str) -> None:
        self._label, self._unit, self._total, self._done = label, unit, total, 0
        self._started = self._last = time.monotonic()
        if total:
            print(f"{label}: {total} {unit}", file=sys.stderr, flush=True)

    def advance(self, amount: int = 1) -> None:
        self._done += amount
        now = time.monotonic()
        if now - self._last >= 2.0:
            self._last = now
            elapsed = now - self._started
            rate = self._done / elapsed if elapsed else 0.0
            print(
                f"{self._label}: {self._done}/{self._total} {self._unit}, {elapsed:.0f} s, "
                f"{rate:.0f} {self._unit}/s",
                file=sys.stderr,
                flush=True,
            )

    def finish(self) -> None:
        pass


@contextmanager
def _stop_on_sigint(request_stop: Any) -> Iterator[list[bool]]:
    """First Ctrl-C asks the indexer to stop, which it does within a second, keeping the work
    done so far; the second aborts at once."""
    hit: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        stops = engine_stops.get()  # run by the engine: it stops the run if the client goes
        if stops is not None:
            stops.append(request_stop)
        yield hit
        return

    def handler(signum: int, frame: Any) -> None:
        if hit:
            raise KeyboardInterrupt
        hit.append(True)
        print("stopping, keeping what is done (Ctrl-C again to abort)…", file=sys.stderr)
        request_stop()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield hit
    finally:
        signal.signal(signal.SIGINT, previous)


# Set by the engine around a forwarded ``index``: how the run is stopped once the client that
# asked for it is gone (Ctrl-C there), as a first Ctrl-C stops it in-process.
engine_stops: ContextVar[list[Callable[[], None]] | None] = ContextVar(
    "vaultctx_engine_stops", default=None
)


def _print_report(summary: dict[str, Any]) -> None:
    files = summary["files"]
    chunks = summary["chunks"]
    console("stdout").print(
        f"[bold]indexed[/] in {summary['seconds']:.1f} s: {files['added']} added, "
        f"{files['changed']} changed, {files['removed']} removed, {files['renamed']} renamed, "
        f"{files['unchanged']} unchanged, {files['skipped']} skipped; "
        f"{chunks['written']} chunks written, {chunks['embedded']} embedded"
        + (
            f"; pass 2: {chunks['quality_embedded']} chunks embedded, "
            f"{chunks['quality_remaining']} remaining"
            if chunks["quality_remaining"] is not None
            else ""
        )
    )
    from rich.markup import escape

    for warning in summary["warnings"]:
        console("stderr").print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    for skipped in summary["skipped"][:20]:
        print_plain(f"skipped {skipped['path']}: {skipped['reason']}", "stderr")
    if len(summary["skipped"]) > 20:
        console("stderr").print(f"… and {len(summary['skipped']) - 20} more skipped (see --json)")
    for problem in summary["problems"][:20]:
        print_plain(f"problem in {problem['path']}: {problem['problem']}", "stderr")
    if summary["secrets_redacted"]:
        counts = _kinds(summary["secrets_redacted"])
        console("stdout").print(f"secrets redacted before storing: {counts}", highlight=False)
    _print_secrets_by_file(summary.get("secrets_by_file", []))


# Files listed with their secrets before "… and N more"; --json lists every one.
SECRET_FILES_SHOWN = 20


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} ×{n}" for name, n in counts.items())


def _print_secrets_by_file(by_file: list[dict[str, Any]]) -> None:
    """Where the secrets were, so they can be removed from the notes: kinds and counts only."""
    for entry in by_file[:SECRET_FILES_SHOWN]:
        print_plain(f"  in {entry['path']}: {_kinds(entry['secrets'])}")
    if len(by_file) > SECRET_FILES_SHOWN:
        more = len(by_file) - SECRET_FILES_SHOWN
        console("stdout").print(f"  … and {more} more files (see --json)")


def index(
    vault: VaultOption = None,
    db: DbOption = None,
    full: Annotated[bool, typer.Option("--full", help="Re-read and re-embed every file.")] = False,
    fast: Annotated[
        bool,
        typer.Option(
            "--fast", help="Stop after pass 1 (searchable at once; transformer vectors later)."
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Index the vault (incremental: only new, changed, renamed and deleted files)."""
    handle = open_vault(vault, db)
    # Run by the engine, stderr is streamed to the terminal as lines: no live bar.
    served = served_vault.get() is not None
    interactive = sys.stderr.isatty() and not quiet and not as_json and not served
    progress: ProgressSink | None = None
    if interactive:
        from vaultctx.cli.index_progress import RichProgress  # rich costs ~0.1 s to import

        progress = RichProgress()
    elif not (quiet or as_json):
        progress = LineProgress()
    indexer = handle.indexer(progress=progress)
    with _stop_on_sigint(indexer.request_stop):
        report = indexer.run(full=full, fast=fast)
    summary = report.as_dict()
    brain_lines: list[str] = []
    if not report.interrupted:
        checked, brain_lines = second_brain_check(handle)
        if checked is not None:
            summary["second_brain"] = checked
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
    elif not quiet:
        _print_report(summary)
        for line in brain_lines:
            console("stdout").print(line, markup=False, highlight=False)
    if report.interrupted:
        print(
            "interrupted: progress so far is saved; run `vaultctx index` again to finish",
            file=sys.stderr,
        )
        raise typer.Exit(130)


def second_brain_check(handle: Vault) -> tuple[dict[str, Any] | None, list[str]]:
    """After an index run, while the Second Brain is enabled: mark the synthesis notes whose
    sources changed (docs/second-brain.md#provenance-and-staleness). A failure here never fails
    the run that just succeeded: it is reported as a line."""
    from vaultctx.brain.settings import load_second_brain_settings

    try:
        if not load_second_brain_settings(handle.path).enabled:
            return None, []  # the common case, decided without importing the wiki machinery
    except VaultctxError:
        pass  # check_after_index reports it below
    from vaultctx.brain.staleness import check_after_index

    try:
        check = check_after_index(handle)
    except VaultctxError as exc:
        return {"error": exc.one_line()}, [f"Second Brain: stale check skipped: {exc.one_line()}"]
    if check is None:
        return None, []
    return check.as_dict(), check.report_lines()


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    return f"{size:.1f} GB"


def _coverage(done: int, total: int, model: str | None) -> str:
    if not model:
        return "not started (run `vaultctx index`)"
    share = 100.0 * done / total if total else 100.0
    return f"{done}/{total} chunks ({share:.0f}%, {model})"


def _engine_rows(info: IndexStatus) -> list[tuple[str, str]]:
    """SQLite's and sqlite-vec's versions, or the PostgreSQL server's facts."""
    if info.store != "postgresql":
        return [
            ("sqlite", info.sqlite_version or "-"),
            ("sqlite-vec", info.vec_version or "not loaded: BM25 only"),
        ]
    tls = f"yes ({info.tls_version})" if info.tls and info.tls_version else "yes"
    return [
        ("postgresql", info.server_version or "-"),
        ("pgvector", info.pgvector_version or "not installed: BM25 only"),
        ("tls", tls if info.tls else "no"),
        ("schema", info.schema or "-"),
    ]


def _quality_coverage(info: IndexStatus) -> str:
    shown = _coverage(info.quality_vectors, info.quality_chunks, info.quality_model_name)
    left = info.chunks - info.quality_chunks
    if info.quality_model_name and left > 0:
        shown += f"; {left} other chunks read by the multilingual vectors"
    return shown


def status(vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Show what the index holds: files, chunks, model, last run, size, capabilities."""
    handle = open_vault(vault, db)
    info = handle.status()
    if as_json:
        print(json.dumps(info.as_dict(), ensure_ascii=False))
        return
    if not info.exists:
        raise VaultctxError(f"no index yet at {info.db}", f"run `{handle.index_command()}`")
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, box=None)
    last = info.last_run or {}
    finished = last.get("finished_at")
    rows = [
        ("vault", info.vault),
        ("database", f"{info.db} ({_human_bytes(info.db_bytes)})"),
        ("files", str(info.files)),
        ("chunks", str(info.chunks)),
        ("vectors", f"{info.vectors} ({info.model_name or 'no model'}, {info.model_hash or '-'})"),
        ("pass 2 vectors", _quality_coverage(info)),
        (
            "last run",
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(finished))
            + (" (interrupted)" if last.get("interrupted") else "")
            if finished
            else "never",
        ),
        *_engine_rows(info),
        ("fts5 tokenizer", info.fts_tokenizer or "-"),
        ("keyword analysis", info.fts_analyzer or "-"),
        ("notes with problems", str(info.problems)),
    ]
    if info.meaning_search:
        rows.append(("languages", info.meaning_search))
    if info.scrubber_note:
        rows.append(("scrubber", info.scrubber_note))
    if not info.writable:
        rows.append(("access", "read-only: search works; `vaultctx index` cannot update it here"))
    for key, value in rows:
        # Text, not markup: a folder named "vault [x]" is shown as named.
        table.add_row(Text(key, style="bold"), Text(value))
    console("stdout").print(table)


def doctor(vault: VaultOption = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Check the index's integrity and say how to repair what is wrong."""
    report = open_vault(vault, db).doctor()
    if as_json:
        print(json.dumps({"ok": report.ok, "checks": report.checks}, ensure_ascii=False))
    else:
        colours = {"ok": "green", "warn": "yellow", "fail": "red"}
        for check in report.checks:
            colour = colours[check["status"]]
            console("stdout").print(f"[{colour}]{check['status']:>4}[/] {check['check']}: ", end="")
            console("stdout").print(check["detail"], markup=False, highlight=False)
            if check["advice"]:
                console("stdout").print(f"      → {check['advice']}", markup=False, highlight=False)
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(index)
    app.command()(status)
    app.command()(doctor)
