"""``vaultctx index`` run by the engine.

Unlike the other forwarded commands it runs outside the warm vault's lock, on a ``Vault`` of its
own (a search meanwhile is answered from the index as committed so far, as with two processes,
and never waits minutes for a full run), with the vault's watcher paused so the two never index
at once. Its stderr is streamed to the client as it is written (the progress lines), with an
empty line every few seconds while nothing is written, so a long run is never taken for a
wedged engine. A client that goes away (Ctrl-C) is noticed at the next line sent, within a
heartbeat, and the run is stopped as a first Ctrl-C stops it in-process: at the next file, with
the work done so far kept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vaultctx.cli.forward import ENGINE_FORWARDED, FORWARDED

if TYPE_CHECKING:
    from vaultctx.api import Vault
    from vaultctx.engine.watching import Watchers

log = logging.getLogger("vaultctx.engine")
HEARTBEAT_SECONDS = 1.0  # well inside the client's answer timeout (engine_link.client)

Send = Callable[[dict[str, Any]], None]


def wanted(request: dict[str, Any]) -> bool:
    """Whether ``request`` is a command this module runs."""
    argv = request.get("argv")
    return isinstance(argv, list) and bool(argv) and argv[0] in ENGINE_FORWARDED


class _Stream:
    """The command's stderr, sent as it comes, and a heartbeat while it is silent."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.stops: list[Callable[[], None]] = []  # the run's request_stop, once it runs
        self._done = threading.Event()
        self._gone = False
        self._beat = threading.Thread(target=self._beating, name="vaultctx-heartbeat", daemon=True)
        self._beat.start()

    def write(self, text: str) -> None:
        if not self._gone:
            try:
                self._send({"stream": text})
            except OSError:  # the client went away (Ctrl-C): the run stops, keeping its work
                self._gone = True
        if self._gone:  # again at each beat: the run may register its stop after the client left
            for stop in self.stops:
                stop()

    def _beating(self) -> None:
        while not self._done.wait(HEARTBEAT_SECONDS):
            self.write("")

    def close(self) -> None:
        self._done.set()
        self._beat.join()


def run(watchers: Watchers, warm: Vault, request: dict[str, Any], send: Send) -> dict[str, Any]:
    """The forwarded command's answer, run on a fresh ``Vault`` for ``warm``'s index."""
    from vaultctx.api import Vault
    from vaultctx.cli.index_cmds import engine_stops
    from vaultctx.cli.served import run_request

    key = (str(request.get("vault")), str(request.get("db")))
    vault = Vault(config=warm.config)
    stream = _Stream(send)
    started = time.perf_counter()
    stopping = engine_stops.set(stream.stops)
    try:
        with watchers.paused(key), vault.reporting_index_damage():
            answer = run_request(
                vault, request, stream=stream.write, allowed=FORWARDED | ENGINE_FORWARDED
            )
    finally:
        engine_stops.reset(stopping)
        stream.close()
        vault.close()
    watchers.start(key, warm)  # a first index made the file a watcher needs
    seconds = time.perf_counter() - started
    log.info("%s: index, exit %s, %.2f s", warm.path, answer.get("exit", "declined"), seconds)
    return answer
