"""The progress bar ``vaultctx index`` shows at a terminal; its own module because rich's
progress classes take ~0.1 s to import, which a no-op run or a piped run never needs."""

from __future__ import annotations

from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from vaultctx.cli.common import console


class _RateColumn(ProgressColumn):
    """Items per second, e.g. "41 chunks/s": the figure users watch during pass 2."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        unit = task.fields.get("unit", "")
        return Text("" if speed is None else f"{speed:.0f} {unit}/s", style="cyan")


class RichProgress:
    """A progress bar for people at a terminal."""

    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("[bold]{task.fields[label]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            _RateColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console("stderr"),
            transient=True,
        )
        self._task: Any = None

    def start(self, label: str, total: int, unit: str) -> None:
        self._progress.start()
        self._task = self._progress.add_task(label, total=total, label=label, unit=unit)

    def advance(self, amount: int = 1) -> None:
        self._progress.advance(self._task, amount)

    def finish(self) -> None:
        self._progress.stop()
