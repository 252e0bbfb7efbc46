"""The engine keeps each vault it holds indexed: a ``VaultWatcher`` (index/watch.py, the code
``vaultctx watch`` and ``serve --http --watch`` run) per vault, in a thread of its own.

Indexing runs on a ``Vault`` made for each run, not on the warm one the commands use: the
static model's word cache is not shared between threads, and the models an indexing run loads
are freed when it ends, so a watched vault costs memory only while a change is being indexed.
Runs are debounced as in ``vaultctx watch`` (a burst of saves costs a few runs, not one per
file). A vault whose folder disappears is dropped from the engine with a log line; a vault
with no index yet is not watched (``vaultctx index`` builds it, and the next command that opens
the vault starts its watcher). ``VAULTCTX_ENGINE_WATCH=off`` turns watching off.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from vaultctx.errors import VaultctxError
from vaultctx.index.db import index_exists

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.config import Config
    from vaultctx.index.indexer import Indexer
    from vaultctx.index.watch import VaultWatcher

log = logging.getLogger("vaultctx.engine")
WATCH_ENV = "VAULTCTX_ENGINE_WATCH"
STOP_WAIT = 10.0  # a run in progress finishes its file and commits before the engine exits

Key = tuple[str, str]


class VaultGoneError(VaultctxError):
    """The vault's folder is not there any more: its watcher ends and the engine drops it."""


def enabled() -> bool:
    return os.environ.get(WATCH_ENV, "").strip().lower() not in ("off", "0", "no", "false")


def fresh_indexer(config: Config) -> Callable[[], Indexer]:
    """A new ``Indexer`` on a new ``Vault`` for each run, refused once the folder is gone (an
    indexer would otherwise read a missing vault as an empty one and empty the index)."""

    def new_indexer() -> Indexer:
        from vaultctx.api import Vault

        if not config.vault.is_dir():
            raise VaultGoneError(f"the vault {config.vault} is gone", "the engine drops it")
        return Vault(config=config).indexer()

    return new_indexer


class Watchers:
    """One watcher per vault the engine holds; ``drop`` is called with a vault's key when its
    watcher ends on its own (the folder gone, the file watcher failed), so the next command
    opens the vault afresh."""

    def __init__(self, drop: Callable[[Key], None]) -> None:
        self._drop = drop
        self._watchers: dict[Key, VaultWatcher] = {}
        self._lock = threading.Lock()
        self._closed = False

    def start(self, key: Key, vault: Vault) -> None:
        """Watch ``vault`` from now on (once per key; not at all when off or not indexed)."""
        if not enabled() or not index_exists(vault.db_path):
            return
        from vaultctx.index.watch import VaultWatcher
        from vaultctx.mcp.watch_events import after_watch_event

        config = vault.config
        watcher = VaultWatcher(
            config,
            fresh_indexer(config),
            # not ``vault.quality_embedder()``: the warm vault is its commands' (under their
            # lock); a pass 2 whose runtime is missing does nothing (each run's own Vault)
            quality=bool(config.settings.quality_engine),
            on_event=after_watch_event(config),
        )
        with self._lock:
            if self._closed or key in self._watchers:
                return
            self._watchers[key] = watcher
        name = f"vaultctx-engine-watch-{len(self._watchers)}"
        threading.Thread(target=self._run, args=(key, watcher), name=name, daemon=True).start()
        log.info("%s: watching for changes", config.vault)

    def _run(self, key: Key, watcher: VaultWatcher) -> None:
        folder = watcher.config.vault
        try:
            watcher.run()
        except VaultGoneError:
            pass
        except Exception:  # the engine outlives a watcher; the vault is opened afresh later
            log.exception("%s: watching failed", folder)
        with self._lock:
            ours = self._watchers.get(key) is watcher
            if ours:
                del self._watchers[key]
            if self._closed or not ours:
                return
        if folder.is_dir():
            log.warning("%s: watching stopped; the vault is dropped and opened afresh", folder)
        else:
            log.warning("%s: the vault's folder is gone; the engine dropped it", folder)
        self._drop(key)

    def watching(self, key: Key) -> bool:
        """Whether ``key``'s vault is watched and its watcher has caught up (changes from now
        on are seen)."""
        with self._lock:
            watcher = self._watchers.get(key)
        return watcher is not None and watcher.ready.is_set()

    @contextmanager
    def paused(self, key: Key) -> Iterator[None]:
        """No watcher run on ``key``'s vault inside the block (a forwarded ``index`` runs)."""
        with self._lock:
            watcher = self._watchers.get(key)
        if watcher is None:
            yield
            return
        with watcher.paused():
            yield

    def stop_all(self) -> None:
        """Stop every watcher, each finishing the file it is on, and start no more."""
        with self._lock:
            self._closed = True
            watchers, self._watchers = list(self._watchers.values()), {}
        for watcher in watchers:
            watcher.stop()
        for watcher in watchers:
            watcher.stop(wait_seconds=STOP_WAIT)
