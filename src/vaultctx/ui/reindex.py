"""The Status page's "re-index" button: one fast index run in a background thread.

The page polls ``IndexJob.snapshot`` for progress. The run has its own ``Vault`` (the indexer
writes through its own connection), so searches keep being answered while it runs; a second
press while one runs is ignored, and another indexer on the same index (``vaultctx watch``, a
terminal) is reported as the run's error.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Any

from vaultctx.api import Vault
from vaultctx.errors import VaultctxError


@dataclass(frozen=True)
class JobState:
    """What the page shows: ``state`` is idle, running, done or failed."""

    state: str = "idle"
    label: str = ""
    done: int = 0
    total: int = 0
    unit: str = ""
    error: str | None = None
    summary: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "label": self.label,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "error": self.error,
            "summary": self.summary,
        }


class IndexJob:
    """At most one background index run per UI, and its progress (a ``ProgressSink``)."""

    def __init__(self, vault: Vault) -> None:
        self._vault = vault
        self._lock = threading.Lock()
        self._state = JobState()
        self._thread: threading.Thread | None = None

    def snapshot(self) -> JobState:
        with self._lock:
            return self._state

    def start(self) -> bool:
        """Start a run unless one is running; whether one started."""
        with self._lock:
            if self._state.state == "running":
                return False
            self._state = JobState(state="running")
            self._thread = threading.Thread(target=self._run, name="vaultctx-ui-index", daemon=True)
            self._thread.start()
            return True

    def wait(self, seconds: float) -> None:
        thread = self._thread
        if thread is not None:
            thread.join(seconds)

    def start_pass(self, label: str, total: int, unit: str) -> None:
        self._update(label=label, total=total, unit=unit, done=0)

    def advance(self, amount: int) -> None:
        with self._lock:
            self._state = replace(self._state, done=self._state.done + amount)

    def _update(self, **changes: Any) -> None:
        with self._lock:
            self._state = replace(self._state, **changes)

    def _run(self) -> None:
        indexer = Vault(config=self._vault.config)
        try:
            report = indexer.index(fast=True, progress=_Sink(self))
        except VaultctxError as exc:
            self._update(state="failed", error=exc.one_line())
            return
        except Exception as exc:  # a bug: say so on the page rather than spin forever
            self._update(state="failed", error=f"internal error: {type(exc).__name__}: {exc}")
            raise
        finally:
            indexer.close()
        summary = (
            f"{report.files_seen} files: {report.added} added, {report.changed} changed, "
            f"{report.removed} removed ({report.seconds:.1f} s)"
        )
        self._update(state="done", summary=summary)


class _Sink:
    """The indexer's ``ProgressSink`` protocol, forwarded to the job."""

    def __init__(self, job: IndexJob) -> None:
        self._job = job

    def start(self, label: str, total: int, unit: str) -> None:
        self._job.start_pass(label, total, unit)

    def advance(self, amount: int = 1) -> None:
        self._job.advance(amount)

    def finish(self) -> None:
        pass
