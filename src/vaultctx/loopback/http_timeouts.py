"""Time limits for HTTP clients, which uvicorn does not fully set on its own.

uvicorn closes a kept-alive connection that stays silent after a response (``timeout_keep_alive``),
but it arms no timer for a connection that never sends a request at all, and one that sends its
request a byte at a time restarts nothing and is never cut (slowloris). Each such connection holds
a socket, a protocol object and possibly a request task for as long as the client likes, so a
handful of scripts could exhaust the server's file descriptors. ``TimedH11Protocol`` adds:

- **idle**: a new connection must start a request within ``IDLE_TIMEOUT_SECONDS``, the same limit
  uvicorn applies between the requests of a kept-alive connection;
- **request**: once a request's first byte has arrived, its head and whole body must be in within
  ``REQUEST_TIMEOUT_SECONDS``, or the connection is closed (the application sees a disconnect).

Answering is not limited: a search may take its time, and the MCP event stream (a GET whose
request is complete once its head is) stays open as long as the client keeps it.
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

IDLE_TIMEOUT_SECONDS = 15
REQUEST_TIMEOUT_SECONDS = 30


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the idle and request time limits of the module docstring."""

    _request_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # uvicorn's own keep-alive timer, armed before the first request too; any byte cancels it.
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def handle_events(self) -> None:
        """Run after every read and every response: the one place the request's state changes."""
        super().handle_events()
        state = self.conn.their_state
        arriving = state is h11.SEND_BODY or (state is h11.IDLE and self.conn.trailing_data[0])
        if arriving and self._request_deadline is None:
            self._request_deadline = self.loop.call_later(
                REQUEST_TIMEOUT_SECONDS, self._request_too_slow
            )
        elif not arriving:
            self._cancel_request_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_request_deadline()
        super().connection_lost(exc)

    def _request_too_slow(self) -> None:
        self._request_deadline = None
        if not self.transport.is_closing():
            peer = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
            log.warning(
                "closing the connection from %s: its request did not arrive within %d s",
                peer,
                REQUEST_TIMEOUT_SECONDS,
            )
            self.transport.close()

    def _cancel_request_deadline(self) -> None:
        if self._request_deadline is not None:
            self._request_deadline.cancel()
            self._request_deadline = None
