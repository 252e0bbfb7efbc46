"""A server that never completes the connection, or never reads the request, cannot hold a
fetch past its one deadline (organize/fetch.py).

The read side is covered in test_fetch_edges.py and test_fetch_guard_edges.py; these cover the
other two waits of a request. Each is held by two nets, and each net is tested alone: the
streams and the pinned connect give every operation only the time left, and the request carries
its own connect and write timeouts (checked here with the first net switched off).

Both servers are real loopback sockets. A listener with a backlog of 0 and one connection it
never accepts leaves the next connect hanging (Linux drops its SYN); a listener with a tiny
receive window and segment size that never reads blocks a request of 60,000 bytes after about
24 KB (the longest URL httpx takes is 65,536 characters).
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.local_web import local_web
from vaultctx.organize import fetch as fetch_module
from vaultctx.organize.fetch import FetchError, fetch

DEADLINE_MESSAGE = "the fetch took longer than its time limit"
LONG_QUERY = "q=" + "a" * 60_000


@contextmanager
def _full_backlog() -> Iterator[int]:
    """A port whose listener never accepts, its one backlog slot taken: a connect to it hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = int(listener.getsockname()[1])
    filler = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        yield port
    finally:
        filler.close()
        listener.close()


class _NeverReads(socketserver.ThreadingTCPServer):
    """Accepts connections and never reads from them, with a tiny window and segment size."""

    daemon_threads = True
    held = threading.Event()

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        super().server_bind()


class _Hold(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        _NeverReads.held.wait(10)


@contextmanager
def _never_reads() -> Iterator[int]:
    server = _NeverReads(("127.0.0.1", 0), _Hold)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def _timed_refusal(url: str, authority: str) -> tuple[FetchError, float]:
    started = time.monotonic()
    with pytest.raises(FetchError) as refused:
        fetch(url, allow_hosts=[authority], timeout=1.0)
    return refused.value, time.monotonic() - started


def _streams_unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first net switched off: every operation gets the timeout httpcore gives it."""
    monkeypatch.setattr(fetch_module, "_bounded", lambda timeout, deadline: timeout)


def test_the_smallest_receive_window_blocks_a_long_request() -> None:
    """The premise of the write tests: this request cannot be written without the server."""
    with _never_reads() as port, socket.create_connection(("127.0.0.1", port)) as client:
        client.settimeout(1.0)
        with pytest.raises(TimeoutError):
            client.sendall(b"GET /?" + LONG_QUERY.encode() + b" HTTP/1.1\r\n\r\n")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("nets", ["both", "the request's own timeout"])
@pytest.mark.parametrize("stall", ["connect", "write"])
def test_a_connect_or_a_request_that_never_completes_ends_at_the_deadline(
    stall: str, nets: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if nets != "both":
        _streams_unbounded(monkeypatch)
    server, query = (_full_backlog, "") if stall == "connect" else (_never_reads, LONG_QUERY)
    with server() as port:
        refused, elapsed = _timed_refusal(f"http://127.0.0.1:{port}/?{query}", f"127.0.0.1:{port}")
    assert refused.message == DEADLINE_MESSAGE
    assert 0.9 < elapsed < 4, elapsed


def test_a_stream_write_gets_only_the_time_left() -> None:
    """The stream's own bound, seen from the socket layer: the time left, not the request's."""

    class Recording:
        def __init__(self) -> None:
            self.timeouts: list[Any] = []

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.timeouts.append(timeout)

    inner = Recording()
    stream = fetch_module._DeadlineStream(inner, time.monotonic() + 10)  # type: ignore[arg-type]
    stream.write(b"GET / HTTP/1.1\r\n\r\n")
    stream.write(b"", timeout=2.0)
    first, second = inner.timeouts
    assert 9 < first <= 10 and second == 2.0


@pytest.mark.timeout(30)
def test_the_request_gives_connect_write_and_read_at_most_the_time_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The request's own net, as httpcore hands it down: a timeout for every operation (none
    left to wait forever), none longer than the fetch's limit."""
    given: dict[str, list[float | None]] = {}
    real_connect = fetch_module._PinnedBackend.connect_tcp

    def connect(self: Any, host: str, port: int, timeout: float | None = None, **kw: Any) -> Any:
        given.setdefault("connect", []).append(timeout)
        return real_connect(self, host, port, timeout, **kw)

    class Stream(fetch_module._DeadlineStream):
        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            given.setdefault("read", []).append(timeout)
            return super().read(max_bytes, timeout)

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            given.setdefault("write", []).append(timeout)
            super().write(buffer, timeout)

    monkeypatch.setattr(fetch_module._PinnedBackend, "connect_tcp", connect)
    monkeypatch.setattr(fetch_module, "_DeadlineStream", Stream)

    def slow(handler: Any) -> None:
        time.sleep(3)

    with local_web({"/": slow}) as web:
        refused, _elapsed = _timed_refusal(web.url(), web.authority)
    assert refused.message == DEADLINE_MESSAGE
    assert sorted(given) == ["connect", "read", "write"]
    timeouts = [t for each in given.values() for t in each]
    assert all(t is not None and 0 < t <= 1.0 for t in timeouts), given
