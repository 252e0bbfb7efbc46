"""A progress sink that asks the indexer to stop after a number of files, as SIGINT would."""

from __future__ import annotations

from vaultctx.index.indexer import Indexer


class StopAfter:
    def __init__(self, indexer: Indexer, files: int) -> None:
        self.indexer = indexer
        self.files = files
        self.seen = 0

    def start(self, label: str, total: int, unit: str) -> None:
        pass

    def advance(self, amount: int = 1) -> None:
        self.seen += amount
        if self.seen == self.files:
            self.indexer.request_stop()

    def finish(self) -> None:
        pass
