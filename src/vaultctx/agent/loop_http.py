"""An HTTP client for the OpenAI SDK that is safe to use from more than one event loop.

A pooled connection belongs to the event loop that opened it. The CLI runs one
``asyncio.run`` per step (list a review, then apply it; a brain command per topic), and the web
UI runs a flow's model calls on a worker thread's own loop while its server loop goes on. With
the SDK's own client, the second loop reuses a connection of the first, closed loop and the
call dies with ``RuntimeError: Event loop is closed``; and a client dropped after its loop has
closed schedules its own close on whichever loop happens to be running when it is collected,
where it fails again and is reported as an unhandled error of that unrelated loop.

Here every loop gets its own connection pool, a closed loop's pool is let go (its sockets are
closed when it is collected), and the client has no finaliser that reaches into another loop.
The pools share one TLS context: loading the system's certificates takes ~0.1 s, which every new
loop (each ``ask`` the engine runs is one) would otherwise pay before its first request.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import weakref
from typing import Any

import httpx2

# The OpenAI SDK's own defaults (openai/_constants.py): one client serves many calls at once.
CONNECTION_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)


_tls: list[ssl.SSLContext] = []
_tls_lock = threading.Lock()


def _tls_context() -> ssl.SSLContext:
    """The context a pool would make for itself (``verify=True``, the environment's
    certificate settings honoured), made once per process."""
    with _tls_lock:
        if not _tls:
            _tls.append(httpx2.create_ssl_context())
        return _tls[0]


class PerLoopTransport(httpx2.AsyncBaseTransport):
    """One ``AsyncHTTPTransport`` per running event loop, made on first use in that loop."""

    def __init__(self) -> None:
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncHTTPTransport]
        self._pools = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _pool(self) -> httpx2.AsyncHTTPTransport:
        loop = asyncio.get_running_loop()
        with self._lock:
            for closed in [old for old in self._pools if old.is_closed()]:
                del self._pools[closed]
            pool = self._pools.get(loop)
            if pool is None:
                pool = self._pools[loop] = httpx2.AsyncHTTPTransport(
                    verify=_tls_context(), limits=CONNECTION_LIMITS
                )
            return pool

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return await self._pool().handle_async_request(request)

    async def aclose(self) -> None:
        """Closes this loop's pool; another loop's pool can only be closed from that loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.pop(loop, None)
        if pool is not None:
            await pool.aclose()


def loop_safe_client(timeout: float) -> Any:
    """An ``httpx2.AsyncClient`` for ``AsyncOpenAI(http_client=...)``, with the SDK's defaults
    (redirects followed, its connection limits) but a pool per event loop."""
    return httpx2.AsyncClient(transport=PerLoopTransport(), timeout=timeout, follow_redirects=True)
