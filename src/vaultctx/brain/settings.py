"""``[second_brain]`` in vaultctx.toml: off until the user turns it on, and where the wiki lives.

The Second Brain writes notes on its own initiative (a synthesis, an index, an architecture
note), so nothing of it runs until ``enabled = true``; every tool and command refuses clearly
before that. Its writes stay inside ``wiki_folder``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vaultctx.config import ConfigError, table_values, vault_relative_folder
from vaultctx.errors import VaultctxError

DEFAULT_WIKI_FOLDER = "Second Brain"
# (cosine + 1) / 2 between first-chunk static vectors, measured on the Obsidian Help vault and the
# PowerShell docs (bench/brain_thresholds.py; docs/benchmarks.md, "Second Brain thresholds").
DEFAULT_LINK_THRESHOLD = 0.89
DEFAULT_DUPLICATE_THRESHOLD = 0.99
DEFAULT_SCHEDULER_HOURS = 24
_THRESHOLDS = ("link_threshold", "duplicate_threshold")
ENABLE_HINT = (
    "set enabled = true under [second_brain] in the vault's vaultctx.toml (docs/second-brain.md)"
)


class SecondBrainOffError(VaultctxError):
    def __init__(self) -> None:
        super().__init__("Second Brain is turned off; nothing was run", ENABLE_HINT)


@dataclass(frozen=True)
class SecondBrainSettings:
    enabled: bool = False
    wiki_folder: str = DEFAULT_WIKI_FOLDER
    link_threshold: float = DEFAULT_LINK_THRESHOLD
    duplicate_threshold: float = DEFAULT_DUPLICATE_THRESHOLD
    scheduler: bool = False  # the upkeep of `vaultctx brain run`, by the engine, every N hours
    scheduler_interval_hours: int = DEFAULT_SCHEDULER_HOURS

    def require_enabled(self) -> None:
        if not self.enabled:
            raise SecondBrainOffError()


def load_second_brain_settings(
    vault: Path, user_config_dir: Path | None = None
) -> SecondBrainSettings:
    values: dict[str, object] = {}
    for key, (path, value) in table_values(vault, "second_brain", user_config_dir).items():
        if key in ("enabled", "scheduler"):
            if not isinstance(value, bool):
                raise ConfigError(
                    f"{path}: [second_brain] {key} must be true or false, got {value!r}",
                    f"write {key} = true",
                )
            values[key] = value
        elif key == "scheduler_interval_hours":
            values[key] = _interval_hours(value, path)
        elif key == "wiki_folder":
            if isinstance(value, str) and not value.strip():
                continue  # blank means the default, as in the plugin's settings
            values[key] = vault_relative_folder("[second_brain] wiki_folder", value, path)
        elif key in _THRESHOLDS:
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
                raise ConfigError(
                    f"{path}: [second_brain] {key} must be a number above 0 and at most 1, "
                    f"got {value!r}",
                    f"write e.g. {key} = 0.9 (similarity on 0-1, docs/second-brain.md)",
                )
            values[key] = float(value)
        else:
            raise ConfigError(
                f"{path}: unknown setting [second_brain] {key}",
                "use enabled, wiki_folder, link_threshold, duplicate_threshold, scheduler or "
                "scheduler_interval_hours",
            )
    return SecondBrainSettings(**values)  # type: ignore[arg-type]


def _interval_hours(value: object, path: Path) -> int:
    """A number of hours, 1 or more, rounded to a whole hour (as the plugin's setting is)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 1:
        raise ConfigError(
            f"{path}: [second_brain] scheduler_interval_hours must be a number of hours, "
            f"1 or more, got {value!r}",
            f"write e.g. scheduler_interval_hours = {DEFAULT_SCHEDULER_HOURS} (the default)",
        )
    return max(1, round(value))
