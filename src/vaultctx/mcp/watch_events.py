"""What ``serve --http --watch`` does after each indexer run: log it, and while the Second Brain
is enabled, mark the synthesis notes whose sources the run changed (docs/second-brain.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultctx.errors import VaultctxError
from vaultctx.index.watch import WatchEvent, log_event

if TYPE_CHECKING:
    from vaultctx.config import Config

log = logging.getLogger(__name__)


def after_watch_event(config: Config) -> Callable[[WatchEvent], None]:
    def on_event(event: WatchEvent) -> None:
        log_event(event)
        report = event.report
        if event.kind != "indexed" or report is None:
            return
        if not (report.added or report.changed or report.removed or report.renamed):
            return
        from vaultctx.api import Vault
        from vaultctx.brain.staleness import check_after_index

        try:
            check = check_after_index(Vault(config=config))
        except VaultctxError as exc:
            log.warning("Second Brain: stale check skipped: %s", exc.one_line())
            return
        except Exception:  # a bug here must not end watching; the next batch tries again
            log.exception("Second Brain: stale check failed")
            return
        for line in check.report_lines() if check is not None else []:
            log.info("%s", line)

    return on_event
