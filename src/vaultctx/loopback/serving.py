"""Tie work to the time a Starlette app serves: the server record is written when it starts and
removed when it stops."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette


def run_while_serving(app: Starlette, start: Callable[[], None], stop: Callable[[], None]) -> None:
    """Call ``start`` when the app starts serving and ``stop`` when it shuts down.

    Tied to the app's lifespan rather than to code around ``uvicorn.run``: on SIGTERM uvicorn
    shuts the app down gracefully and then re-raises the signal, so code after ``run`` never
    executes and a state file would be left behind for hooks to trip over.
    """
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        async with inner(application) as state:
            start()
            try:
                yield state
            finally:
                stop()

    app.router.lifespan_context = lifespan
