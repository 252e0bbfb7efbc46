"""The HTTP server bounds what one client can take: memory for a body, time for a connection.

A 300 MB POST to the hook endpoint used to be read whole before its 64 KiB limit was checked, and
a connection that never sent a request was never closed. Measured on the real server process.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx2
import pytest

from tests.mcp.conftest import HttpServer, stop, wait_until_listening
from tests.security.serving import STRONG_TOKEN, has_proc, rss_kib, serve_env, start, tiny_vault

HOOK_PATH = "/vaultctx/hook/context"
BODY_BYTES = 50 * 1024 * 1024
CHUNK = b"x" * 65536
DEADLINE = 60.0  # generous: a loaded 2-core machine; the limits themselves are 15 s and 30 s
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("limits")
    vault, db = tiny_vault(root)
    env = serve_env(root / "config", VAULTCTX_TOKEN=STRONG_TOKEN)
    started = start(vault, db, env)
    try:
        wait_until_listening(started)
        yield started
    finally:
        stop(started)


def hook_headers(server: HttpServer) -> dict[str, str]:
    return {
        "host": f"127.0.0.1:{server.port}",
        "content-type": "application/json",
        "authorization": f"Bearer {STRONG_TOKEN}",
    }


def post_streamed(server: HttpServer, total: int) -> httpx2.Response:
    """POST ``total`` bytes in 64 KiB chunks, chunked encoding: no length is announced."""

    def chunks() -> Iterator[bytes]:
        for _ in range(total // len(CHUNK)):
            yield CHUNK

    return httpx2.post(
        f"http://127.0.0.1:{server.port}{HOOK_PATH}",
        content=chunks(),
        headers=hook_headers(server),
        timeout=DEADLINE,
    )


@pytest.mark.skipif(not has_proc(), reason="reads the server's memory from /proc")
def test_an_oversized_body_is_cut_off_not_kept(server: HttpServer) -> None:
    pid = server.process.pid
    post_streamed(server, 1024 * 1024)  # the same path once, so first-use allocations are done
    baseline, peak_before = rss_kib(pid), rss_kib(pid, "VmHWM")
    samples = [baseline]
    uploading = True

    def sample() -> None:
        while uploading:
            samples.append(rss_kib(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        response = post_streamed(server, BODY_BYTES)
    finally:
        uploading = False
        sampler.join()
    grown = max(max(samples) - baseline, rss_kib(pid, "VmHWM") - peak_before)
    print(f"RSS grew by at most {grown} KiB for a {BODY_BYTES // 1024} KiB body")
    assert response.status_code == 413
    assert "65536" in response.json()["error"]
    assert grown < 10 * 1024  # KiB: far less than the 50 MiB sent


def test_an_announced_oversized_body_is_refused_before_it_is_sent(server: HttpServer) -> None:
    head = "".join(
        f"{name}: {value}\r\n"
        for name, value in {**hook_headers(server), "content-length": str(BODY_BYTES)}.items()
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE) as connection:
        connection.sendall(f"POST {HOOK_PATH} HTTP/1.1\r\n{head}\r\n".encode())
        status_line = connection.recv(4096).split(b"\r\n", 1)[0]
    assert status_line == b"HTTP/1.1 413 Request Entity Too Large"


def test_the_body_stops_being_read_at_the_limit() -> None:
    from starlette.requests import Request

    from vaultctx.loopback.guard import MAX_BODY_BYTES, BodyTooLargeError, read_body

    delivered = 0

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        delivered += 1
        return {"type": "http.request", "body": CHUNK, "more_body": True}  # never ends

    scope = {"type": "http", "method": "POST", "path": HOOK_PATH, "headers": []}

    async def read() -> bytes:
        return await read_body(Request(scope, receive))

    with pytest.raises(BodyTooLargeError):
        anyio.run(read)
    assert delivered == MAX_BODY_BYTES // len(CHUNK) + 1


def seconds_until_closed(connect: tuple[str, int], opening: bytes, trickle: bytes) -> float:
    """Send ``opening``, then ``trickle`` once a second, until the server closes the connection."""
    started = time.monotonic()
    with socket.create_connection(connect, timeout=1.0) as connection:
        if opening:
            connection.sendall(opening)
        while time.monotonic() - started < DEADLINE:
            try:
                if trickle:
                    connection.sendall(trickle)
                if connection.recv(4096) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                continue
            except OSError:  # reset by the server
                return time.monotonic() - started
    raise AssertionError(f"the server kept the connection open for {DEADLINE} s")


def event_stream_seconds(server: HttpServer, hold: float) -> float:
    """Open an MCP session's event stream (GET /mcp) and read it for ``hold`` seconds."""
    url = f"http://127.0.0.1:{server.port}/mcp"
    headers = {
        "authorization": f"Bearer {STRONG_TOKEN}",
        "accept": "application/json, text/event-stream",
    }
    with httpx2.Client(headers=headers, timeout=httpx2.Timeout(DEADLINE)) as client:
        answer = client.post(url, json=INITIALIZE)
        session = {"mcp-session-id": answer.headers["mcp-session-id"]}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        client.post(url, json=initialized, headers=session)
        started = time.monotonic()
        with client.stream("GET", url, headers={**session, "accept": "text/event-stream"}) as s:
            assert s.status_code == 200
            for _ in s.iter_bytes():  # the SDK sends a ping every 15 s
                if time.monotonic() - started > hold:
                    break
        return time.monotonic() - started


def test_silent_and_trickling_connections_are_closed(server: HttpServer) -> None:
    """All at once, so the test takes one request time limit (30 s), not the sum of them."""
    address = ("127.0.0.1", server.port)
    host = f"Host: 127.0.0.1:{server.port}\r\n"
    slow_body_head = (
        f"POST /mcp HTTP/1.1\r\n{host}Authorization: Bearer {STRONG_TOKEN}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        "Content-Length: 100000\r\n\r\n"
    )
    with ThreadPoolExecutor(max_workers=4) as pool:
        silent = pool.submit(seconds_until_closed, address, b"", b"")
        slow_head = pool.submit(
            seconds_until_closed, address, f"POST /mcp HTTP/1.1\r\n{host}".encode(), b"X-a: b\r\n"
        )
        slow_body = pool.submit(seconds_until_closed, address, slow_body_head.encode(), b"{")
        stream = pool.submit(event_stream_seconds, server, 40.0)
        closed = {
            "silent": silent.result(),
            "slow head": slow_head.result(),
            "slow body": slow_body.result(),
        }
        print({name: round(seconds, 1) for name, seconds in closed.items()})
        # Not cut early either: the limits are 15 s idle, 30 s for a whole request.
        assert 14 <= closed["silent"] < DEADLINE
        assert 29 <= closed["slow head"] < DEADLINE
        assert 29 <= closed["slow body"] < DEADLINE
        # A complete request may take its time answering: the event stream outlives the limit.
        assert stream.result() > 40.0
