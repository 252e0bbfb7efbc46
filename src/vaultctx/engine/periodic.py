"""Jobs the engine runs on its own while it is up: today the Second Brain's scheduled upkeep
(docs/second-brain.md#scheduled-upkeep) for each vault it holds.

A vault is checked as soon as the engine holds it, then every 30 minutes (the plugin's
rhythm); the upkeep itself runs only when its ``[second_brain]`` settings turn it on and its
interval has passed since the last run (``review.brain_scheduler``). A run where every step
failed is tried again after an hour, not at the next check. A job takes the vault's lock, as a
forwarded command does, and never counts as activity: an engine nobody uses still stops when
idle. Nothing here raises: a job's failure is logged and the next check goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from vaultctx.errors import VaultctxError

if TYPE_CHECKING:
    from vaultctx.api import Vault


class WarmVault(Protocol):
    """What the engine keeps per vault (``server.WarmVault``)."""

    vault: Vault
    lock: threading.Lock


class HoldsVaults(Protocol):
    def held_vaults(self) -> Mapping[tuple[str, str], WarmVault]: ...


log = logging.getLogger("vaultctx.engine")
CHECK_EVERY_SECONDS = 30 * 60
RETRY_AFTER_FAILURE_SECONDS = 60 * 60
TICK_SECONDS = 2.0


class UpkeepJob:
    """When each held vault is checked next (monotonic seconds)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.next_check: dict[tuple[str, str], float] = {}

    def __call__(self, vaults: Mapping[tuple[str, str], WarmVault]) -> None:
        for key, warm in vaults.items():
            if self.clock() < self.next_check.get(key, 0.0):
                continue
            self.next_check[key] = self.clock() + self.check(warm)

    def check(self, warm: WarmVault) -> float:
        """Run the upkeep if due; seconds until the next check."""
        from vaultctx.review.brain_scheduler import run_if_due

        try:
            with warm.lock:
                run = run_if_due(warm.vault)
        except (VaultctxError, OSError) as exc:
            shown = exc.one_line() if isinstance(exc, VaultctxError) else str(exc)
            log.warning("%s: Second Brain upkeep not run: %s", warm.vault.path, shown)
            return CHECK_EVERY_SECONDS
        if run is None:
            return CHECK_EVERY_SECONDS
        for line in run.lines():
            log.info("%s: Second Brain upkeep: %s", warm.vault.path, line)
        return CHECK_EVERY_SECONDS if run.any_ok else RETRY_AFTER_FAILURE_SECONDS


def start_periodic_jobs(engine: HoldsVaults) -> threading.Thread:
    """A daemon thread running every job over the engine's vaults each tick."""
    jobs: list[Callable[[Mapping[tuple[str, str], WarmVault]], None]] = [UpkeepJob()]

    def loop() -> None:
        while True:
            time.sleep(TICK_SECONDS)
            vaults = engine.held_vaults()
            for job in jobs:
                try:
                    job(vaults)
                except Exception:  # a job's bug must not end the others, nor the engine
                    log.exception("periodic job failed")

    thread = threading.Thread(target=loop, name="vaultctx-engine-periodic", daemon=True)
    thread.start()
    return thread
