"""The web fetcher's error path and time bounds at their edges (organize/fetch.py).

Each test holds one promise the broader tests in test_fetch.py leave loose: what an error answer
or a failed connection says, that only redirect statuses with a Location are followed, that a
stalled TLS handshake and a response stalled after its headers are held to the one deadline,
and that the pinned backend connects to nothing but the host that was checked. Every server is
on loopback; nothing reaches the network.
"""

from __future__ import annotations

import random
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import pytest

from tests.local_web import local_web, page, send
from vaultctx.organize import fetch as fetch_module
from vaultctx.organize.fetch import FetchError, fetch

ARTICLE = "<html><body><p>Body text</p></body></html>"


@pytest.mark.parametrize("status", [400, 401, 403, 500])
def test_an_answer_of_400_or_more_is_an_error_naming_the_address_and_status(status: int) -> None:
    route = lambda h: send(h, status, b"no")  # noqa: E731
    with local_web({"/": route}) as web, pytest.raises(FetchError) as failed:
        fetch(web.url(), allow_hosts=[web.authority])
    assert failed.value.message == f"{web.url()} answered HTTP {status}"
    assert failed.value.suggestion == "check the address in a browser"


def test_an_answer_below_400_is_a_page() -> None:
    route = lambda h: send(h, 399, ARTICLE.encode())  # noqa: E731
    with local_web({"/": route}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert (fetched.status, fetched.body) == (399, ARTICLE.encode())


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_status_without_a_location_is_the_page_itself(status: int) -> None:
    route = lambda h: send(h, status, ARTICLE.encode())  # noqa: E731
    with local_web({"/": route}) as web:
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert (fetched.status, fetched.body, fetched.url) == (status, ARTICLE.encode(), web.url())
    assert len(web.hits) == 1


@pytest.mark.parametrize("status", [200, 300, 304])
def test_a_location_on_any_other_status_is_not_followed(status: int) -> None:
    with local_web({}) as web:
        web.routes["/"] = lambda h: send(
            h, status, ARTICLE.encode(), headers={"Location": web.url("/elsewhere")}
        )
        web.routes["/elsewhere"] = page("followed")
        fetched = fetch(web.url(), allow_hosts=[web.authority])
    assert fetched.status == status
    assert [path for path, _ in web.hits] == ["/"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_refused_connection_is_tried_once_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[tuple[str, int]] = []
    real = socket.create_connection

    def counting(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        attempts.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", counting)
    port = _closed_port()
    url = f"http://127.0.0.1:{port}/"
    with pytest.raises(FetchError) as failed:
        fetch(url, allow_hosts=[f"127.0.0.1:{port}"], timeout=10)
    assert failed.value.message.startswith(f"fetching {url} failed (ConnectError: ")
    assert "refused" in failed.value.message.lower()
    assert failed.value.message.endswith(")")
    assert failed.value.suggestion == "check the address, and try again later"
    assert attempts == [("127.0.0.1", port)]


@contextmanager
def _silent_listener() -> Iterator[int]:
    """Accepts connections and never says a word: a TLS handshake against it stalls."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


@pytest.mark.timeout(30)
def test_a_stalled_tls_handshake_hits_the_deadline() -> None:
    with _silent_listener() as port:
        started = time.monotonic()
        with pytest.raises(FetchError) as failed:
            fetch(f"https://localhost:{port}/", allow_hosts=[f"localhost:{port}"], timeout=1.5)
        elapsed = time.monotonic() - started
    assert failed.value.message == "the fetch took longer than its time limit"
    assert 1.4 < elapsed < 6, elapsed


def _late_then_stalled(delay: float) -> Any:
    """Headers after ``delay`` seconds, a first piece of body, then nothing for a long time."""

    def route(handler: Any) -> None:
        time.sleep(delay)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        handler.wfile.write(b"<p>first piece</p>")
        handler.wfile.flush()
        time.sleep(60)

    return route


@pytest.mark.timeout(30)
def test_a_read_after_a_slow_start_gets_only_the_time_left() -> None:
    """The headers take most of the time limit, then the body stalls: the stalled read is given
    the time left until the deadline, not the whole limit again."""
    with local_web({"/": _late_then_stalled(2.0)}) as web:
        started = time.monotonic()
        with pytest.raises(FetchError, match="time limit"):
            fetch(web.url(), allow_hosts=[web.authority], timeout=3.0)
        elapsed = time.monotonic() - started
    assert 2.9 < elapsed < 4.5, elapsed


def test_a_short_time_limit_is_enough_for_a_quick_server() -> None:
    with local_web({"/": page(ARTICLE)}) as web:
        assert fetch(web.url(), allow_hosts=[web.authority], timeout=0.9).body == ARTICLE.encode()


def test_the_pinned_backend_connects_to_nothing_but_the_checked_host() -> None:
    with local_web({"/": page(ARTICLE)}) as web:
        deadline = time.monotonic() + 10
        backend = fetch_module._PinnedBackend("pinned.example", "127.0.0.1", deadline)
        with pytest.raises(httpcore.ConnectError) as refused:
            backend.connect_tcp("other.example", web.port)
        assert str(refused.value) == "refusing to connect to unchecked host other.example"
        stream = backend.connect_tcp("Pinned.Example", web.port)
        try:
            assert stream.get_extra_info("server_addr") == ("127.0.0.1", web.port)
        finally:
            stream.close()
    assert web.hits == []


def test_the_pinned_backend_opens_no_unix_socket() -> None:
    backend = fetch_module._PinnedBackend("pinned.example", "127.0.0.1", time.monotonic() + 10)
    with pytest.raises(httpcore.ConnectError) as refused:
        backend.connect_unix_socket("/tmp/any.sock")
    assert str(refused.value) == "unix sockets are not fetched"


def test_a_bomb_after_honest_bytes_still_decodes_no_more_than_the_room_left() -> None:
    """Half the limit of incompressible bytes, then 64 MB of zeros: the call that meets the
    zeros may produce only what is left of the limit (plus one byte), not the whole limit
    again, so memory stays near the limit (6.4 MB measured for 4 MB; 14.6 MB with the room
    counted as limit + produced)."""
    limit = 4_000_000
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    honest = compressor.compress(random.Random(3).randbytes(limit // 2))
    zeros = b"".join(compressor.compress(bytes(1 << 20)) for _ in range(64))
    body = honest + zeros + compressor.flush()
    assert len(body) < limit, "precondition: the wire bytes stay under the limit"
    route = lambda h: send(h, 200, body, "text/html", {"Content-Encoding": "gzip"})  # noqa: E731
    with local_web({"/": route}) as web:
        tracemalloc.start()
        try:
            with pytest.raises(FetchError, match="larger than the limit of 4,000,000 bytes"):
                fetch(web.url(), allow_hosts=[web.authority], max_bytes=limit)
        finally:
            _current, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
    assert peak < 10_000_000, f"peak {peak:,} bytes"


def test_deflate_is_read_raw_only_when_its_first_bytes_say_so() -> None:
    """A zlib stream that turns corrupt after its first bytes is corrupt; it is not read again
    as raw deflate from the middle (the second piece alone is valid raw deflate)."""
    start = b"\x78\x9c\x00"  # zlib header, then a stored block whose lengths never come
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    rest = raw.compress(b"smuggled") + raw.flush()

    def route(handler: Any) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Encoding", "deflate")
        handler.end_headers()
        handler.wfile.write(start)
        handler.wfile.flush()
        time.sleep(0.3)
        handler.wfile.write(rest)
        handler.wfile.flush()

    with local_web({"/": route}) as web, pytest.raises(FetchError) as corrupt:
        fetch(web.url(), allow_hosts=[web.authority], timeout=10)
    assert corrupt.value.message == "the server sent a corrupt compressed response"


def test_gzip_is_never_read_as_raw_deflate() -> None:
    """Only "deflate" has the raw variant some servers send: a body labelled gzip that is raw
    deflate is corrupt."""
    raw = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = raw.compress(ARTICLE.encode()) + raw.flush()
    route = lambda h: send(h, 200, body, headers={"Content-Encoding": "gzip"})  # noqa: E731
    with local_web({"/": route}) as web, pytest.raises(FetchError) as corrupt:
        fetch(web.url(), allow_hosts=[web.authority])
    assert corrupt.value.message == "the server sent a corrupt compressed response"
