"""The warm engine runs the Second Brain's scheduled upkeep for a vault it holds: a real engine,
a real vault with ``scheduler = true``, polled with a generous deadline. The upkeep's own
schedule (every N hours, the last run per vault) is tested in tests/brain/test_upkeep_cli.py;
here, a vault never run before is due at once."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.conftest import Indexed, by_engine, start_engine, vaultctx, wait_for
from vaultctx.engine.periodic import CHECK_EVERY_SECONDS, RETRY_AFTER_FAILURE_SECONDS, UpkeepJob

SCHEDULED = "[second_brain]\nenabled = true\nscheduler = true\n"


def test_the_engine_runs_the_upkeep_once_for_a_vault_it_holds(
    indexed: Indexed, folder: Path
) -> None:
    (indexed.vault / "vaultctx.toml").write_text(SCHEDULED, encoding="utf-8")
    start_engine()
    held = vaultctx(indexed.args("search", "vault notes"))
    assert by_engine(held), held.stderr
    log = indexed.vault / "Second Brain" / "log.md"

    def logged() -> bool:
        return log.exists() and "scheduled upkeep: 4 of 4 steps done" in log.read_text("utf-8")

    wait_for(logged, "the engine's upkeep appended to the activity log")
    assert (indexed.vault / "Second Brain" / "vaultctx Dashboard.base").is_file()
    ledger = vaultctx(indexed.args("ledger", "--json"), in_process=True)
    assert [r["label"] for r in json.loads(ledger.stdout)] == ["brain run"]
    # Held again by the next command, the vault is not due again for 24 hours.
    assert by_engine(vaultctx(indexed.args("search", "vault notes")))
    assert log.read_text("utf-8").count("scheduled upkeep") == 1


def test_a_vault_is_checked_every_half_hour_and_after_failure_an_hour_later() -> None:
    now = [0.0]
    outcomes = [CHECK_EVERY_SECONDS, RETRY_AFTER_FAILURE_SECONDS]
    checked: list[float] = []

    class Job(UpkeepJob):
        def check(self, warm: object) -> float:  # type: ignore[override]
            checked.append(now[0])
            return outcomes.pop(0)

    job = Job(clock=lambda: now[0])
    vaults = {("v", "d"): object()}  # check() is the test's: the vault is never opened
    job(vaults)  # type: ignore[arg-type]
    now[0] = CHECK_EVERY_SECONDS - 1
    job(vaults)  # type: ignore[arg-type]
    now[0] = CHECK_EVERY_SECONDS
    job(vaults)  # type: ignore[arg-type]
    now[0] = CHECK_EVERY_SECONDS + RETRY_AFTER_FAILURE_SECONDS - 1
    job(vaults)  # type: ignore[arg-type]
    assert checked == [0.0, CHECK_EVERY_SECONDS]
