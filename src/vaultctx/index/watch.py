"""Watch mode (docs/reference.md#indexing): re-index the vault as its files are created, edited,
renamed or deleted.

``watchfiles`` reports changes in batches (a save, a sync burst of 1,000 files); every batch that
touches something indexable triggers one incremental run of the indexer, which re-reads only what
changed. The fast pass (text, BM25, static vectors) runs at once so an edit is searchable within
about a second; the slower transformer pass runs once the vault has been quiet for a while, and
yields to the next change rather than delaying it.

Two threads: one waits on the file system and only records that something changed; the other
runs the indexer. Changes that arrive during a run are coalesced into the next one, so a burst
costs a few runs, not one per file.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import watchfiles

from vaultctx.config import Config
from vaultctx.vault.scanner import IGNORE_FILE_NAME, is_indexed_name, load_ignore_rules

if TYPE_CHECKING:
    from vaultctx.index.indexer import Indexer, IndexReport

log = logging.getLogger(__name__)

DEBOUNCE_MS = 1000  # the longest a continuous burst is grouped before a run starts
STEP_MS = 150  # a batch is yielded once the vault has been quiet this long
IDLE_SECONDS = 30.0  # quiet time before the transformer pass (pass 2) runs
BUSY_RETRY_SECONDS = 1.0

EventKind = Literal["indexed", "quality", "busy", "error"]


@dataclass(frozen=True)
class WatchEvent:
    """What one indexer run did, for the CLI's log lines and the server's log."""

    kind: EventKind
    changes: int
    report: IndexReport | None = None
    message: str = ""


class VaultChangeFilter:
    """Which file-system events can change the index: indexable, not ignored, not our own files
    (the index itself is never inside the vault: ``config.check_db_location``).

    A deleted path cannot be checked for being a folder any more, and a moved folder is reported
    as the folder alone, so deletions and folder events pass unless an ignore rule excludes them;
    a needless run costs one mtime scan.
    """

    def __init__(self, config: Config) -> None:
        self.root = str(config.vault)
        self.settings = config.settings
        self._rules = load_ignore_rules(config.vault, config.settings.ignore)[0]

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        if relative.startswith("../") or relative == "..":
            return False
        if relative == IGNORE_FILE_NAME:
            # The indexer's scan re-reads it on every run; the filter must follow suit.
            self._rules = load_ignore_rules(Path(self.root), self.settings.ignore)[0]
            return True
        parts = relative.split("/")
        name = parts[-1]
        if ".git" in parts or name.startswith(".vaultctx"):
            return False
        for depth in range(1, len(parts)):
            if self._rules.excludes_folder("/".join(parts[:depth])):
                return False
        if is_indexed_name(name):
            parent = "/".join(parts[:-1])
            touched = bool(parent) and self._rules.folder_is_touched(parent)
            return not self._rules.excludes_file(relative, name, touched)
        if self._rules.excludes_folder(relative):
            return False
        return change == watchfiles.Change.deleted or os.path.isdir(path)


class VaultWatcher:
    """Keeps one vault's index current until ``stop()``; ``run()`` blocks the calling thread."""

    def __init__(
        self,
        config: Config,
        new_indexer: Callable[[], Indexer],
        *,
        idle_seconds: float | None = None,
        quality: bool = True,
        on_event: Callable[[WatchEvent], None] | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        step_ms: int = STEP_MS,
    ) -> None:
        self.config = config
        self.new_indexer = new_indexer
        self.idle_seconds = IDLE_SECONDS if idle_seconds is None else idle_seconds
        self.quality = quality
        self.on_event = on_event or log_event
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self._stop = threading.Event()
        self._changed = threading.Event()
        self._lock = threading.Lock()
        self._pending = 0
        self._running: Indexer | None = None
        self._running_quality = False
        self._listening = threading.Event()
        self._thread: threading.Thread | None = None
        self._run_lock = threading.Lock()  # held by each run, and while paused
        self.ready = threading.Event()  # set once the catch-up run is done and changes are seen

    def stop(self, wait_seconds: float = 0.0) -> None:
        """Finish the current file, commit, and make ``run()`` return (safe from any thread).

        ``wait_seconds`` waits that long for a background watcher to get there, so a server
        shutting down does not exit in the middle of a commit.
        """
        self._stop.set()
        self._changed.set()
        with self._lock:
            if self._running is not None:
                self._running.request_stop()
        if self._thread is not None and wait_seconds > 0:
            self._thread.join(wait_seconds)

    def start_in_background(self) -> None:
        """Run in a daemon thread (``serve --http --watch``); ``stop()`` ends it."""
        self._thread = threading.Thread(target=self.run, name="vaultctx-indexer", daemon=True)
        self._thread.start()

    def run(self) -> None:
        listener = threading.Thread(target=self._listen, name="vaultctx-watch", daemon=True)
        listener.start()
        quality_due = self.quality
        self._changed.set()  # catch up with whatever changed while nobody was watching
        try:
            while not self._stop.is_set():
                timeout = self.idle_seconds if quality_due else None
                if self._changed.wait(timeout):
                    if self._stop.is_set():
                        break
                    self._changed.clear()
                    with self._lock:
                        changes, self._pending = self._pending, 0
                    if self._index(fast=True, changes=changes) is None:
                        self._retry_later()
                        continue
                    quality_due = self.quality
                    if not self.ready.is_set() and self._listening.wait(10):
                        self.ready.set()
                elif quality_due:
                    report = self._index(fast=False, changes=0)
                    quality_due = report is None or report.interrupted
        finally:
            self._stop.set()
            listener.join(timeout=5)

    def _retry_later(self) -> None:
        """The index is locked by another indexer: try again shortly, unless stopping."""
        if not self._stop.wait(BUSY_RETRY_SECONDS):
            self._changed.set()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No run of this watcher while the block runs, for another indexer of the same vault
        (the engine's ``vaultctx index``): a pass-2 run stops at its next file, a pass-1 run is
        waited for; what changes meanwhile is indexed after the block."""
        with self._lock:
            if self._running is not None and self._running_quality:
                self._running.request_stop()
        with self._run_lock:
            yield

    def _index(self, *, fast: bool, changes: int) -> IndexReport | None:
        with self._run_lock:
            return self._index_now(fast=fast, changes=changes)

    def _index_now(self, *, fast: bool, changes: int) -> IndexReport | None:
        from vaultctx.index.indexer import IndexerBusyError

        indexer = self.new_indexer()
        with self._lock:
            if self._stop.is_set():
                return None
            self._running, self._running_quality = indexer, not fast
        started = time.perf_counter()
        try:
            report = indexer.run(fast=fast)
        except IndexerBusyError as exc:
            self.on_event(WatchEvent("busy", changes, message=str(exc)))
            return None
        except Exception as exc:  # one bad run must not end watching; the next change retries
            log.exception("watch: indexing failed")
            self.on_event(WatchEvent("error", changes, message=f"{type(exc).__name__}: {exc}"))
            return None
        finally:
            with self._lock:
                self._running = None
        kind: EventKind = "indexed" if fast else "quality"
        seconds = time.perf_counter() - started
        self.on_event(WatchEvent(kind, changes, report, f"{seconds:.2f} s"))
        return report

    def _listen(self) -> None:
        change_filter = VaultChangeFilter(self.config)
        try:
            for changes in watchfiles.watch(
                self.config.vault,
                watch_filter=change_filter,
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=self._stop,
                rust_timeout=200,  # how soon the watch is known to be in place
                yield_on_timeout=True,  # the first (empty) batch says the watch is in place
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                self._listening.set()
                if not changes:
                    continue
                with self._lock:
                    self._pending += len(changes)
                    if self._running is not None and self._running_quality:
                        self._running.request_stop()  # pass 2 waits; the edit goes first
                self._changed.set()
        except Exception as exc:
            log.exception("watch: the file watcher stopped")
            self.on_event(WatchEvent("error", 0, message=f"file watcher stopped: {exc}"))
            self.stop()


def log_event(event: WatchEvent) -> None:
    if event.kind in ("busy", "error"):
        log.warning("watch: %s", event.message)
    else:
        log.info("watch: %s run after %d changes (%s)", event.kind, event.changes, event.message)
